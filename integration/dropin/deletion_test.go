package dropin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The topic the deletion step deletes and re-creates.
const (
	doomed      = "dropin-doomed"
	doomedParts = 3
	// perPartition records are produced to each of its partitions.
	perPartition = 100
)

// Brokers delete replicas asynchronously: told to delete one, a broker
// renames its directory to <topic>-<p>.<uuid>-delete at once, and a
// background task removes it log.segment.delete.delay.ms later (Kafka's
// default 60 s), the task first running log.initial.task.delay.ms after
// startup (30 s). Both are short here, so that the test can wait for the
// directories to go.
const (
	segmentDeleteDelay = 500 * time.Millisecond
	initialTaskDelay   = time.Second
)

// deleteTopic: with kzadmind the controller, a topic (RF 3) with records
// in it is deleted through DeleteTopics sent to kzadmind. ZooKeeper loses
// its assignment, config and marker; every broker removes the partition
// directories from its log dir; nobody can fetch from it; re-created at
// once under the same name it is a new, empty topic that works.
func (s *dropin) deleteTopic(t *testing.T, ctx context.Context) {
	h := s.h
	d := s.first
	if d == nil {
		d = s.standby
	}
	addrs := h.cluster.Addrs()
	h.createOnline(t, ctx, doomed)
	if err := produceConsume(ctx, addrs, doomed); err != nil {
		t.Fatalf("before deletion: %v", err)
	}
	if missing := h.replicaDirs(t, doomed, false); len(missing) > 0 {
		t.Fatalf("replica directories missing before deletion: %v", missing)
	}

	began := time.Now()
	if err := deleteThrough(ctx, d.KafkaAddr(), doomed); err != nil {
		t.Fatal(err)
	}
	accepted := since(began)
	paths := []string{znodes.TopicPath(doomed), znodes.ConfigEntityPath(znodes.EntityTopics, doomed), znodes.DeleteTopicPath(doomed)}
	err := pollUntil(ctx, 30*time.Second, 10*time.Millisecond, func() error {
		for _, p := range paths {
			if _, _, err := h.obs.Get(ctx, p); !isNoNode(err) {
				return fmt.Errorf("%s still there (%v)", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("deletion never completed in ZooKeeper: %v", err)
	}
	inZK := since(began)
	err = pollUntil(ctx, 30*time.Second, 20*time.Millisecond, func() error {
		if left := h.replicaDirs(t, doomed, true); len(left) > 0 {
			return fmt.Errorf("left in the log dirs: %v", left)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("brokers kept the partitions: %v", err)
	}
	t.Logf("deleted %s (%d partitions, RF %d): DeleteTopics answered after %s, znodes gone after %s, "+
		"directories gone from every log dir after %s (log.segment.delete.delay.ms %d)",
		doomed, doomedParts, replicationFactor, accepted, inZK, since(began), segmentDeleteDelay.Milliseconds())
	h.checkUnfetchable(t, ctx, doomed)

	began = time.Now()
	h.createOnline(t, ctx, doomed)
	// The new topic's offsets start again at 0: nothing of the old one.
	if err := produceConsume(ctx, addrs, doomed); err != nil {
		t.Fatalf("after re-creation: %v", err)
	}
	t.Logf("re-created %s at once; online, produced and consumed back in %s", doomed, since(began))
}

// createOnline creates name (doomedParts partitions, RF 3) through zkadmin
// and waits until every partition has a leader and a full ISR in
// ZooKeeper.
func (h *harness) createOnline(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	req := zkadmin.CreateTopicRequest{Topic: name, Partitions: doomedParts, ReplicationFactor: replicationFactor}
	if _, err := h.admin.CreateTopic(ctx, req); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	h.waitOnline(t, ctx, name, doomedParts, replicationFactor)
}

// deleteThrough sends DeleteTopics for name to the Kafka listener at addr
// (kzadmind's) and checks the answer. The request waits, up to its
// timeout, until the controller has started the deletion.
func deleteThrough(ctx context.Context, addr, name string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = 15000
	rt := kmsg.NewDeleteTopicsRequestTopic()
	rt.Topic = kmsg.StringPtr(name)
	req.Topics = append(req.Topics, rt)
	req.TopicNames = append(req.TopicNames, name) // versions before 6
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		return fmt.Errorf("DeleteTopics %s to %s: %w", name, addr, err)
	}
	r := resp.(*kmsg.DeleteTopicsResponse)
	if len(r.Topics) != 1 {
		return fmt.Errorf("DeleteTopics %s to %s: %d results", name, addr, len(r.Topics))
	}
	if err := kerr.ErrorForCode(r.Topics[0].ErrorCode); err != nil {
		return fmt.Errorf("DeleteTopics %s to %s (v%d): %w", name, addr, r.Version, err)
	}
	return nil
}

// replicaDirs lists, over every broker's log dir, the directories of
// name's partitions: with gone false, those of a replica the broker should
// host and does not; with gone true, those still there, including the
// <topic>-<p>.<uuid>-delete ones a broker renames a deleted replica to.
func (h *harness) replicaDirs(t *testing.T, name string, gone bool) []string {
	t.Helper()
	var out []string
	for _, b := range h.cluster.Brokers {
		entries, err := os.ReadDir(b.LogDir())
		if err != nil {
			t.Fatalf("broker %d: %v", b.ID(), err)
		}
		have := map[int]bool{}
		for _, e := range entries {
			if p, ok := partitionDir(e.Name(), name); ok {
				have[p] = true
				if gone {
					out = append(out, fmt.Sprintf("broker %d: %s", b.ID(), e.Name()))
				}
			}
		}
		for p := range doomedParts {
			if !gone && !have[p] {
				out = append(out, fmt.Sprintf("broker %d: %s-%d", b.ID(), name, p))
			}
		}
	}
	return out
}

// partitionDir parses a log dir entry of topic: "<topic>-<p>", or
// "<topic>-<p>.<uuid>-delete" once deleted.
func partitionDir(entry, topic string) (int, bool) {
	rest, ok := strings.CutPrefix(entry, topic+"-")
	if !ok {
		return 0, false
	}
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		if !strings.HasSuffix(rest, "-delete") {
			return 0, false
		}
		rest = rest[:i]
	}
	p, err := strconv.Atoi(rest)
	return p, err == nil
}

// checkUnfetchable checks that name is gone for clients: every broker
// answers Metadata for it with UNKNOWN_TOPIC_OR_PARTITION (once the
// controller's UpdateMetadata reached it), and a consumer given a short
// deadline gets no record.
func (h *harness) checkUnfetchable(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for _, b := range h.cluster.Brokers {
		err := pollUntil(ctx, 30*time.Second, 20*time.Millisecond, func() error {
			return unknownTo(ctx, b, name)
		})
		if err != nil {
			t.Fatalf("broker %d still knows %s: %v (log %s)", b.ID(), name, err, b.LogPath())
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.cluster.Addrs()...), kgo.ConsumeTopics(name),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var got int
	for pctx.Err() == nil {
		got += cl.PollFetches(pctx).NumRecords()
	}
	if got != 0 {
		t.Fatalf("a consumer fetched %d records of the deleted %s", got, name)
	}
}

// unknownTo asks b for name's metadata, without auto-creation (brokers
// allow it by default), and wants UNKNOWN_TOPIC_OR_PARTITION.
func unknownTo(ctx context.Context, b *kafka.Broker, name string) error {
	mt, err := kafkatest.TopicMetadata(ctx, b.Addr(), name, false, 2*time.Second)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(mt.ErrorCode); !errors.Is(err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("metadata for %s: error %v, %d partitions", name, err, len(mt.Partitions))
	}
	return nil
}

// produceConsume writes perPartition records to each partition of name
// and reads every partition back from the start: the records must be
// exactly those, from offset 0 on.
func produceConsume(ctx context.Context, addrs []string, name string) error {
	recs := numbered(doomedParts, perPartition)
	if err := recs.produce(ctx, addrs, name); err != nil {
		return err
	}
	return recs.consume(ctx, addrs, name)
}
