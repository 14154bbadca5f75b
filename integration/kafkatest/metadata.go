package kafkatest

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AskMetadata sends req to the node at addr itself, not to whichever node
// a client would pick: each broker's metadata cache is what the
// controller's UpdateMetadata left there, and the tests compare them.
// timeout, when positive, bounds the dial and the answer; ctx always does.
func AskMetadata(ctx context.Context, addr string, timeout time.Duration, req *kmsg.MetadataRequest) (*kmsg.MetadataResponse, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(addr)}
	if timeout > 0 {
		opts = append(opts, kgo.DialTimeout(timeout))
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", addr, err)
	}
	defer cl.Close()
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("metadata from %s: %w", addr, err)
	}
	return resp.(*kmsg.MetadataResponse), nil
}

// Metadata asks the node at addr alone for the metadata of topics, or of
// every topic when none is named, without creating any.
func Metadata(ctx context.Context, addr string, timeout time.Duration, topics ...string) (*kmsg.MetadataResponse, error) {
	return AskMetadata(ctx, addr, timeout, metadataRequest(false, topics))
}

// TopicMetadata asks the node at addr alone for one topic's metadata,
// letting the broker create the topic when autoCreate is set and its
// auto.create.topics.enable allows, and returns the topic's entry.
func TopicMetadata(ctx context.Context, addr, topic string, autoCreate bool, timeout time.Duration) (kmsg.MetadataResponseTopic, error) {
	md, err := AskMetadata(ctx, addr, timeout, metadataRequest(autoCreate, []string{topic}))
	if err != nil {
		return kmsg.MetadataResponseTopic{}, err
	}
	if len(md.Topics) != 1 {
		return kmsg.MetadataResponseTopic{}, fmt.Errorf("metadata for %s from %s: %d topics", topic, addr, len(md.Topics))
	}
	return md.Topics[0], nil
}

// metadataRequest asks for topics; nil topics ask for all of them (a nil
// list, where an empty one would ask for none).
func metadataRequest(autoCreate bool, topics []string) *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = autoCreate
	for _, name := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	return req
}

// TopicOnline reads topic through adm and returns its details once each of
// its partitions partitions has a leader and rf replicas, all in sync;
// until then, an error that says what is missing. Callers poll it.
func TopicOnline(ctx context.Context, adm *kadm.Client, topic string, partitions, rf int) (kadm.TopicDetail, error) {
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return kadm.TopicDetail{}, err
	}
	td := tds[topic]
	return td, online(topic, td, partitions, rf)
}

// online says what keeps td, topic's details, from being online with partitions partitions
// of rf replicas each, all in sync; nil when nothing does.
func online(topic string, td kadm.TopicDetail, partitions, rf int) error {
	if td.Err != nil {
		return td.Err
	}
	if len(td.Partitions) != partitions {
		return fmt.Errorf("%s: %d partitions, want %d", topic, len(td.Partitions), partitions)
	}
	for _, p := range td.Partitions.Sorted() {
		if p.Leader < 0 || len(p.ISR) != rf || len(p.Replicas) != rf {
			return fmt.Errorf("%s-%d: leader %d, replicas %v, isr %v", topic, p.Partition, p.Leader, p.Replicas, p.ISR)
		}
	}
	return nil
}
