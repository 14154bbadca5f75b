package zkadmin

import (
	"context"
	"fmt"
	"slices"

	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/znodes"
)

// AddPartitionsRequest raises a topic's partition count to Total. The new
// partitions continue the existing layout (placement's continuation), or
// take Assignment: one replica list per new partition, in partition order.
type AddPartitionsRequest struct {
	Topic      string
	Total      int32
	Assignment [][]int32
	RackMode   placement.RackMode
	// AllowDuringReassignment adds partitions even while some of the
	// topic's partitions are being reassigned. Kafka's CreatePartitions
	// refuses that (REASSIGNMENT_IN_PROGRESS), and so does the zero value;
	// the in-flight adding/removing lists are kept either way.
	AllowDuringReassignment bool
	DryRun                  bool
	// Admit, when set, is asked once, after every check and before the
	// write, to take the new partitions from the requester's controller
	// mutation quota (KIP-599); its error refuses the request. Dry runs
	// never ask.
	Admit func(partitions int) error
}

// AddPartitionsResult says what was (or would be) written.
type AddPartitionsResult struct {
	// Added holds the new partitions' replicas; element i is partition
	// Previous+i.
	Previous int32
	Added    [][]int32
	Ops      []Op
	Attempts int
}

// AddPartitions is AdminZkClient.addPartitions with Kafka's checks (the
// topic exists, is not queued for deletion and has no reassignment in
// progress, and the count grows), the partition limits, and a rewrite of
// the whole topic znode that keeps topic_id, the adding/removing lists and
// unknown fields. Unlike Kafka's unconditional setData, the rewrite expects
// the version read, so a concurrent change to the topic is never lost: it
// makes the multi fail, and the request is planned again on fresh data.
func (a *Admin) AddPartitions(ctx context.Context, req AddPartitionsRequest) (*AddPartitionsResult, error) {
	out := &AddPartitionsResult{}
	admitted := false // once, even when a lost race plans again
	plan := func(ctx context.Context, c *Cluster) ([]Op, error) {
		t, existing, err := checkAddPartitions(c, req)
		if err != nil {
			return nil, err
		}
		added, err := a.placeAdded(c, req, existing)
		if err != nil {
			return nil, err
		}
		if req.Admit != nil && !req.DryRun && !admitted {
			if err := req.Admit(len(added)); err != nil {
				return nil, err
			}
			admitted = true
		}
		out.Previous, out.Added = int32(len(existing)), added
		next := t.Assignment
		next.Partitions = make(map[int32][]int32, int(req.Total))
		for p, replicas := range t.Assignment.Partitions {
			next.Partitions[p] = replicas
		}
		for i, replicas := range added {
			next.Partitions[int32(len(existing)+i)] = replicas
		}
		data, err := next.Encode()
		if err != nil {
			return nil, fmt.Errorf("add partitions to %s: %w", req.Topic, err)
		}
		ops, err := a.fenceOps(ctx, c)
		if err != nil {
			return nil, err
		}
		return append(ops, SetOp(znodes.TopicPath(req.Topic), data, t.Version)), nil
	}
	res, err := a.writeLoop(ctx, "add partitions to "+req.Topic, ReadOptions{AllTopics: true}, req.DryRun, plan)
	if err != nil {
		return nil, err
	}
	out.Ops, out.Attempts = res.ops, res.attempts
	return out, nil
}

// checkAddPartitions applies ZkAdminManager.createPartitions' checks in
// Kafka's order and returns the topic and its replica lists by partition.
func checkAddPartitions(c *Cluster, req AddPartitionsRequest) (*Topic, [][]int32, error) {
	name := req.Topic
	t := c.Topic(name)
	switch {
	case t == nil:
		return nil, nil, adminErr(KindUnknownTopic, name, "The topic '%s' does not exist.", name)
	case t.Err != nil:
		return nil, nil, malformed(name, "add partitions to topic '"+name+"'", t.Err)
	case !req.AllowDuringReassignment && c.reassigning(t):
		return nil, nil, adminErr(KindReassignmentInProgress, name,
			"A partition reassignment is in progress for the topic '%s'.", name)
	case t.MarkedForDeletion:
		return nil, nil, adminErr(KindMarkedForDeletion, name, "The topic '%s' is queued for deletion.", name).
			withCode(CodeInvalidTopic)
	}
	existing, ok := t.existingReplicas()
	if !ok {
		return nil, nil, malformed(name, "add partitions to topic '"+name+"'",
			fmt.Errorf("partition ids %v are not 0..n-1", t.Assignment.PartitionIDs()))
	}
	old := int32(len(existing))
	switch {
	case req.Total < old:
		return nil, nil, adminErr(KindInvalidPartitions, name,
			"Topic currently has %d partitions, which is higher than the requested %d.", old, req.Total)
	case req.Total == old:
		return nil, nil, adminErr(KindInvalidPartitions, name, "Topic already has %d partitions.", old)
	case old == 0:
		return nil, nil, malformed(name, "add partitions to topic '"+name+"'", fmt.Errorf("the topic has no partitions"))
	}
	return t, existing, nil
}

// placeAdded validates the explicit lists or places the new partitions,
// limits included.
func (a *Admin) placeAdded(c *Cluster, req AddPartitionsRequest, existing [][]int32) ([][]int32, error) {
	name, limits := req.Topic, c.Limits()
	count := int(req.Total) - len(existing)
	rf := len(existing[0])
	doing := fmt.Sprintf("adding %d partitions to topic '%s'", count, name)
	if req.Assignment != nil {
		// Kafka's order: unregistered brokers, then the list count, then
		// each list (after the topic's state and the counts).
		if unknown := unknownBrokers(c, req.Assignment); len(unknown) > 0 {
			return nil, adminErr(KindInvalidReplicaAssignment, name,
				"Unknown broker(s) in replica assignment: %s.", joinIDsComma(unknown))
		}
		if len(req.Assignment) != count {
			return nil, adminErr(KindInvalidReplicaAssignment, name,
				"Increasing the number of partitions by %d but %d assignments provided.", count, len(req.Assignment))
		}
		if err := validateAssignment(c, name, req.Assignment, nil, len(existing), rf); err != nil {
			return nil, err
		}
		if err := limits.CheckNewPartitions(req.Assignment); err != nil {
			return nil, fromPlacement(name, doing, err)
		}
		return req.Assignment, nil
	}
	brokers, err := placement.ApplyRackMode(c.PlacementBrokers(), req.RackMode)
	if err != nil {
		return nil, fromPlacement(name, doing, err)
	}
	added, err := placement.AddPartitions(brokers, existing, int(req.Total),
		placement.Options{Rand: a.opts.Rand, Limits: limits, Topic: name})
	if err != nil {
		return nil, fromPlacement(name, doing, err)
	}
	return added, nil
}

// unknownBrokers returns the brokers of asg that are not registered,
// sorted, each once.
func unknownBrokers(c *Cluster, asg [][]int32) []int32 {
	var out []int32
	for _, replicas := range asg {
		for _, b := range replicas {
			if _, ok := c.Broker(b); !ok && !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	slices.Sort(out)
	return out
}
