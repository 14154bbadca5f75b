package differential

import (
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Conditions for step.until. Both runs wait on the same condition, for
// what Kafka's brokers do asynchronously: a broker applies a dynamic
// config when its change notification arrives, and an auto-created topic
// gets its leaders after the controller sees its znode.

// topicLed accepts a Metadata answer in which topic exists with
// partitions partitions (any number when partitions is anyCount), each
// with a leader.
// anyCount, as topicLed's count, accepts any number of partitions but 0.
const anyCount = -1

func topicLed(topic string, partitions int) func(kmsg.Response) error {
	return func(resp kmsg.Response) error {
		t, err := metadataTopic(resp, topic)
		if err != nil {
			return err
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return fmt.Errorf("%s: %w", topic, err)
		}
		if len(t.Partitions) == 0 || partitions != anyCount && len(t.Partitions) != partitions {
			return fmt.Errorf("%s: %d partitions, want %d", topic, len(t.Partitions), partitions)
		}
		for _, p := range t.Partitions {
			if p.Leader < 0 {
				return fmt.Errorf("%s-%d has no leader", topic, p.Partition)
			}
		}
		return nil
	}
}

// metadataTopic finds topic in a Metadata answer.
func metadataTopic(resp kmsg.Response, topic string) (*kmsg.MetadataResponseTopic, error) {
	md, ok := resp.(*kmsg.MetadataResponse)
	if !ok {
		return nil, fmt.Errorf("%T is no Metadata answer", resp)
	}
	for i, t := range md.Topics {
		if t.Topic != nil && *t.Topic == topic {
			return &md.Topics[i], nil
		}
	}
	return nil, fmt.Errorf("%s not in the answer", topic)
}

// topicGone accepts a Metadata answer in which topic answers
// UNKNOWN_TOPIC_OR_PARTITION.
func topicGone(topic string) func(kmsg.Response) error {
	return func(resp kmsg.Response) error {
		t, err := metadataTopic(resp, topic)
		if err != nil {
			return err
		}
		if t.ErrorCode != kerr.UnknownTopicOrPartition.Code {
			return fmt.Errorf("%s still listed", topic)
		}
		return nil
	}
}

// created accepts a CreateTopics answer without errors.
func created(resp kmsg.Response) error {
	ct, ok := resp.(*kmsg.CreateTopicsResponse)
	if !ok {
		return fmt.Errorf("%T is no CreateTopics answer", resp)
	}
	for _, t := range ct.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return fmt.Errorf("%s: %w", t.Topic, err)
		}
	}
	return nil
}

// configShows accepts a DescribeConfigs answer whose first resource lists
// key with value, or does not list key when value is "".
func configShows(key, value string) func(kmsg.Response) error {
	return func(resp kmsg.Response) error {
		dc, ok := resp.(*kmsg.DescribeConfigsResponse)
		if !ok || len(dc.Resources) == 0 {
			return fmt.Errorf("%T has no config resource", resp)
		}
		for _, c := range dc.Resources[0].Configs {
			if c.Name != key {
				continue
			}
			if c.Value != nil && *c.Value == value {
				return nil
			}
			return fmt.Errorf("%s=%v, want %q", key, fmtPtr(c.Value), value)
		}
		if value == "" {
			return nil
		}
		return fmt.Errorf("%s not listed, want %q", key, value)
	}
}

func fmtPtr(s *string) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *s)
}

// allLed accepts a Metadata answer in which every topic named in counts
// has that many partitions, each with a leader.
func allLed(counts map[string]int) func(kmsg.Response) error {
	return func(resp kmsg.Response) error {
		for _, topic := range slices.Sorted(maps.Keys(counts)) {
			if err := topicLed(topic, counts[topic])(resp); err != nil {
				return err
			}
		}
		return nil
	}
}

// noReassignments accepts a ListPartitionReassignments answer without
// errors that lists no partition: every reassignment has completed.
func noReassignments(resp kmsg.Response) error {
	lr, ok := resp.(*kmsg.ListPartitionReassignmentsResponse)
	if !ok {
		return fmt.Errorf("%T is no ListPartitionReassignments answer", resp)
	}
	if err := kerr.ErrorForCode(lr.ErrorCode); err != nil {
		return err
	}
	for _, t := range lr.Topics {
		for _, p := range t.Partitions {
			return fmt.Errorf("%s-%d still moving to %v", t.Topic, p.Partition, p.Replicas)
		}
	}
	return nil
}

// partitionsAre accepts a Metadata answer in which topic's partitions
// have the given replicas, in order, all in the ISR, and a leader.
func partitionsAre(topic string, replicas map[int32][]int32) func(kmsg.Response) error {
	return eachPartition(topic, func(p kmsg.MetadataResponseTopicPartition) error {
		want, ok := replicas[p.Partition]
		switch {
		case !ok:
			return nil
		case !slices.Equal(p.Replicas, want):
			return fmt.Errorf("replicas %v, want %v", p.Replicas, want)
		case len(p.ISR) != len(want):
			return fmt.Errorf("ISR %v, want all of %v", p.ISR, want)
		case p.Leader < 0:
			return fmt.Errorf("no leader")
		}
		return nil
	})
}

// leadersAre accepts a Metadata answer in which topic's partitions have
// the given leaders.
func leadersAre(topic string, leaders map[int32]int32) func(kmsg.Response) error {
	return eachPartition(topic, func(p kmsg.MetadataResponseTopicPartition) error {
		if want, ok := leaders[p.Partition]; ok && p.Leader != want {
			return fmt.Errorf("leader %d, want %d", p.Leader, want)
		}
		return nil
	})
}

// both accepts an answer that every condition accepts.
func both(conds ...func(kmsg.Response) error) func(kmsg.Response) error {
	return func(resp kmsg.Response) error {
		for _, c := range conds {
			if err := c(resp); err != nil {
				return err
			}
		}
		return nil
	}
}

// leaderEpochsReach accepts a Metadata answer in which topic's partitions
// have at least the given leader epochs. A broker's Metadata comes from
// its cache, which the controller's UpdateMetadata updates after the
// controller's own answers: a reassignment the controller lists as done
// may still show the leader epoch from before its completion there.
func leaderEpochsReach(topic string, epochs map[int32]int32) func(kmsg.Response) error {
	return eachPartition(topic, func(p kmsg.MetadataResponseTopicPartition) error {
		if want, ok := epochs[p.Partition]; ok && p.LeaderEpoch < want {
			return fmt.Errorf("leader epoch %d, want at least %d", p.LeaderEpoch, want)
		}
		return nil
	})
}

// eachPartition accepts a Metadata answer that lists topic and whose
// partitions check accepts.
func eachPartition(topic string, check func(kmsg.MetadataResponseTopicPartition) error) func(kmsg.Response) error {
	return func(resp kmsg.Response) error {
		t, err := metadataTopic(resp, topic)
		if err != nil {
			return err
		}
		for _, p := range t.Partitions {
			if err := check(p); err != nil {
				return fmt.Errorf("%s-%d: %w", topic, p.Partition, err)
			}
		}
		return nil
	}
}
