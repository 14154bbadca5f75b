package zkadmin

import (
	"fmt"
	"strings"
)

// validateAssignment checks an explicit replica assignment: for a new topic
// (first == 0) or for partitions first, first+1, ... added to an existing
// topic whose replication factor is rf. Kafka's rules (AdminZkClient's
// validateReplicaAssignment) with Kafka's messages: a non-empty list per
// partition, no broker twice in a list, the same number of replicas
// everywhere. Plus KRaft's rule, which kzadmin follows in ZooKeeper mode
// too (design brief §3): every replica must be a registered broker, since
// Kafka's ZK controller would otherwise leave such a partition leaderless.
// ids, when not nil, are the partitions' ids as the request numbered them
// (CreateTopicRequest.AssignmentIDs), which the messages name.
func validateAssignment(c *Cluster, topic string, asg [][]int32, ids []int32, first, rf int) error {
	if len(asg) == 0 {
		return adminErr(KindInvalidReplicaAssignment, topic, "The replica assignment for topic '%s' lists no partitions.", topic)
	}
	for i, replicas := range asg {
		p := first + i
		if ids != nil {
			p = int(ids[i])
		}
		if err := checkReplicaList(topic, p, replicas, first > 0); err != nil {
			return err
		}
	}
	if msg := rfMismatch(asg, first, rf); msg != "" {
		return adminErr(KindInvalidReplicaAssignment, topic, "%s", msg)
	}
	for _, replicas := range asg {
		for _, b := range replicas {
			if _, ok := c.Broker(b); !ok {
				return adminErr(KindInvalidReplicaAssignment, topic,
					"The manual partition assignment includes broker %d, but no such broker is registered.", b)
			}
		}
	}
	return nil
}

// checkReplicaList refuses an empty list or a broker listed twice, with
// Kafka's messages: AdminZkClient's for new partitions of a topic
// (adding), KRaft's for a new topic, where ZooKeeper-mode Kafka prints a
// Scala map instead.
func checkReplicaList(topic string, p int, replicas []int32, adding bool) error {
	if len(replicas) == 0 {
		if adding {
			return adminErr(KindInvalidReplicaAssignment, topic, "Cannot have replication factor of 0 for partition id %d.", p)
		}
		return adminErr(KindInvalidReplicaAssignment, topic,
			"The manual partition assignment includes an empty replica list (topic '%s', partition %d).", topic, p)
	}
	d, dup := firstDuplicate(replicas)
	switch {
	case !dup:
		return nil
	case adding:
		return adminErr(KindInvalidReplicaAssignment, topic,
			"Duplicate brokers not allowed in replica assignment: %s for partition id %d.", joinIDsComma(replicas), p)
	}
	return adminErr(KindInvalidReplicaAssignment, topic,
		"Duplicate replica assignment found for partition %d of topic '%s': broker %d appears twice in %s.",
		p, topic, d, joinIDs(replicas))
}

// rfMismatch returns Kafka's message when the lists do not all have rf
// replicas (rf <= 0: the first list's count), or "".
func rfMismatch(asg [][]int32, first, rf int) string {
	if rf <= 0 {
		rf = len(asg[0])
		for _, replicas := range asg {
			if len(replicas) != rf {
				return "All partitions should have the same number of replicas"
			}
		}
		return ""
	}
	var ids, counts []string
	for i, replicas := range asg {
		if len(replicas) != rf {
			ids = append(ids, fmt.Sprint(first+i))
			counts = append(counts, fmt.Sprint(len(replicas)))
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("Inconsistent replication factor between partitions, partition 0 has %d while partitions [%s] "+
		"have replication factors [%s], respectively.", rf, strings.Join(ids, ", "), strings.Join(counts, ", "))
}

func firstDuplicate(ids []int32) (int32, bool) {
	for i, a := range ids {
		for _, b := range ids[:i] {
			if a == b {
				return a, true
			}
		}
	}
	return 0, false
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// joinIDsComma joins ids as Scala's mkString(", ") does.
func joinIDsComma(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// consecutiveFromZero reports whether ascending ids are 0..n-1 (nil is:
// the lists are numbered by their place).
func consecutiveFromZero(ids []int32) bool {
	for i, id := range ids {
		if id != int32(i) {
			return false
		}
	}
	return true
}
