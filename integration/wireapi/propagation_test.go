package wireapi

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/kafkatest"
)

// TestAnswersReachEveryBroker: once kzadmind answers CreateTopics,
// CreatePartitions or DeleteTopics with a timeout, every broker already
// shows the change to a Metadata request sent to it right away, with no
// polling (the answers wait for the brokers' answers to the
// UpdateMetadata; README, "Wire APIs served by kzadmind").
func TestAnswersReachEveryBroker(t *testing.T) {
	c := sharedCluster(t)
	ctx := testCtx(t, 3*time.Minute)
	kz := rawClient(t, c.d.KafkaAddr())
	for round := range 3 {
		name := fmt.Sprintf("%s-%d", scriptPrefix("prop"), round)
		create := kmsg.NewPtrCreateTopicsRequest()
		create.TimeoutMillis = 30000
		ct := kmsg.NewCreateTopicsRequestTopic()
		ct.Topic, ct.NumPartitions, ct.ReplicationFactor = name, 4, 2
		create.Topics = append(create.Topics, ct)
		resp, err := create.RequestWith(ctx, kz)
		if err != nil || len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
			t.Fatalf("create %s: %v %+v", name, err, resp)
		}
		c.everyBrokerShows(t, ctx, name, 4)

		grow := kmsg.NewPtrCreatePartitionsRequest()
		grow.TimeoutMillis = 30000
		gt := kmsg.NewCreatePartitionsRequestTopic()
		gt.Topic, gt.Count = name, 6
		grow.Topics = append(grow.Topics, gt)
		gresp, err := grow.RequestWith(ctx, kz)
		if err != nil || len(gresp.Topics) != 1 || gresp.Topics[0].ErrorCode != 0 {
			t.Fatalf("create partitions %s: %v %+v", name, err, gresp)
		}
		c.everyBrokerShows(t, ctx, name, 6)

		del := kmsg.NewPtrDeleteTopicsRequest()
		del.TimeoutMillis = 30000
		dt := kmsg.NewDeleteTopicsRequestTopic()
		dt.Topic = kmsg.StringPtr(name)
		del.TopicNames, del.Topics = []string{name}, []kmsg.DeleteTopicsRequestTopic{dt} // v0-5, v6+
		dresp, err := del.RequestWith(ctx, kz)
		if err != nil || len(dresp.Topics) != 1 || dresp.Topics[0].ErrorCode != 0 {
			t.Fatalf("delete %s: %v %+v", name, err, dresp)
		}
		c.everyBrokerShows(t, ctx, name, 0)
	}
}

// everyBrokerShows asks each broker, once, for the topic: it must list
// partitions partitions, each with a leader (none: the topic is unknown).
func (c *cluster) everyBrokerShows(t *testing.T, ctx context.Context, name string, partitions int) {
	t.Helper()
	for id := int32(1); id <= numBrokers; id++ {
		md, err := kafkatest.Metadata(ctx, c.brokers[id], metadataTimeout, name)
		if err != nil {
			t.Fatalf("Metadata from broker %d: %v", id, err)
		}
		if len(md.Topics) != 1 {
			t.Fatalf("broker %d: %d topics for %s", id, len(md.Topics), name)
		}
		mt := md.Topics[0]
		if partitions == 0 {
			if mt.ErrorCode != kerr.UnknownTopicOrPartition.Code {
				t.Errorf("broker %d still lists %s after its deletion was answered (error %d)", id, name, mt.ErrorCode)
			}
			continue
		}
		if mt.ErrorCode != 0 || len(mt.Partitions) != partitions {
			t.Errorf("broker %d right after the answer: %s has error %d and %d partitions, want %d",
				id, name, mt.ErrorCode, len(mt.Partitions), partitions)
			continue
		}
		for _, p := range mt.Partitions {
			if p.ErrorCode != 0 || p.Leader < 0 {
				t.Errorf("broker %d right after the answer: %s-%d has error %d, leader %d", id, name, p.Partition, p.ErrorCode, p.Leader)
			}
		}
	}
}
