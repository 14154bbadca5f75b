package placement

import "fmt"

// CheckNewPartitions checks partitions about to be created with explicit replica lists (a
// manual assignment, or one computed elsewhere) against the limits: max.partitions for their
// number, max.broker.partitions for the replicas each broker would gain. It returns a
// *LimitError naming the cluster, or the broker pushed furthest over its limit.
func (l Limits) CheckNewPartitions(assignment [][]int32) error {
	if err := l.checkCluster(len(assignment)); err != nil {
		return err
	}
	return l.brokerError(assignment)
}

// CheckReassignment checks reassignment targets against max.broker.partitions. current[i]
// and target[i] are one partition's replica lists before and after. A broker is charged for
// each replica it gains and credited nothing for replicas it gives up, because it hosts both
// until the reassignment completes and a half-finished batch must not overshoot either.
// The partition count does not change, so max.partitions is not involved.
func (l Limits) CheckReassignment(current, target [][]int32) error {
	if len(current) != len(target) {
		return fmt.Errorf("placement: %d current replica lists for %d targets", len(current), len(target))
	}
	return l.checkAdded(AddedReplicas(current, target))
}

// AddedReplicas counts, per broker, the replicas that target places on brokers that did not
// already hold them in current (index by index).
func AddedReplicas(current, target [][]int32) map[int32]int {
	added := map[int32]int{}
	for i := range target {
		for _, id := range target[i] {
			if i >= len(current) || !contains(current[i], id) {
				added[id]++
			}
		}
	}
	return added
}

func contains(list []int32, id int32) bool {
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}
