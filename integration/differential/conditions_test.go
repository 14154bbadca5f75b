package differential

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Conditions for step.until. Both runs wait on the same condition, for
// what Kafka's brokers do asynchronously: a broker applies a dynamic
// config when its change notification arrives, and an auto-created topic
// gets its leaders after the controller sees its znode.

// topicLed accepts a Metadata answer in which topic exists with
// partitions partitions, each with a leader.
func topicLed(topic string, partitions int) func(kmsg.Response) error {
	return func(resp kmsg.Response) error {
		md, ok := resp.(*kmsg.MetadataResponse)
		if !ok {
			return fmt.Errorf("%T is no Metadata answer", resp)
		}
		for _, t := range md.Topics {
			if t.Topic == nil || *t.Topic != topic {
				continue
			}
			if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
				return fmt.Errorf("%s: %w", topic, err)
			}
			if len(t.Partitions) != partitions {
				return fmt.Errorf("%s: %d partitions, want %d", topic, len(t.Partitions), partitions)
			}
			for _, p := range t.Partitions {
				if p.Leader < 0 {
					return fmt.Errorf("%s-%d has no leader", topic, p.Partition)
				}
			}
			return nil
		}
		return fmt.Errorf("%s not in the answer", topic)
	}
}

// topicGone accepts a Metadata answer in which topic answers
// UNKNOWN_TOPIC_OR_PARTITION.
func topicGone(topic string) func(kmsg.Response) error {
	return func(resp kmsg.Response) error {
		md, ok := resp.(*kmsg.MetadataResponse)
		if !ok {
			return fmt.Errorf("%T is no Metadata answer", resp)
		}
		for _, t := range md.Topics {
			if t.Topic != nil && *t.Topic == topic && t.ErrorCode == kerr.UnknownTopicOrPartition.Code {
				return nil
			}
		}
		return fmt.Errorf("%s still listed", topic)
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
