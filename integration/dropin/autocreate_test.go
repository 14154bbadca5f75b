package dropin

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/znodes"
)

const (
	// autoTopic is the topic a broker auto-creates.
	autoTopic = "dropin-auto"
	// autoParts is the brokers' num.partitions, what an auto-created
	// topic gets; with default.replication.factor 3 over the four nodes a
	// broker's metadata lists (three brokers and kzadmind), some replicas
	// surely land on kzadmind's id.
	autoParts = 6
	// autoPerPart records are produced to each partition of autoTopic.
	autoPerPart = 50
)

// replacedMsg is what kzadmind logs when it re-places a replica that a
// broker's auto-creation put on the controller's id.
const replacedMsg = "re-placed a replica assigned to the controller's id"

// autoCreate: a broker asked for metadata of a missing topic, with
// auto-creation allowed, writes the topic to ZooKeeper itself (ZooKeeper
// mode, no forwarding), placing replicas over every live node its
// metadata lists, kzadmind included. kzadmind re-places those replicas
// before bringing the partitions online: no replica in the final
// assignment is the controller's id, every partition has a leader and a
// full ISR written under the current controller epoch, and records go in
// and come back out.
func (s *dropin) autoCreate(t *testing.T, ctx context.Context) {
	h := s.h
	ctl, epoch, err := h.controller(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logFrom := fileSize(h.logPath(ctl))
	b := h.cluster.Brokers[0]
	began := time.Now()
	err = pollUntil(ctx, time.Minute, 100*time.Millisecond, func() error {
		return autoCreateVia(ctx, h, b, autoTopic)
	})
	if err != nil {
		t.Fatalf("broker %d never auto-created %s: %v (log %s)", b.ID(), autoTopic, err, b.LogPath())
	}
	created := time.Since(began)
	st := h.waitOnline(t, ctx, autoTopic, autoParts, replicationFactor)
	online := time.Since(began)
	a := h.assignmentOf(t, ctx, autoTopic)
	for p, ps := range st {
		r := a.Partitions[int32(p)]
		if len(r) != replicationFactor || slices.Contains(r, ctl) || slices.Contains(ps.ISR, ctl) || !distinctBrokers(r) {
			t.Fatalf("%s-%d assigned %v, state %s: a replica on controller %d or off the brokers", autoTopic, p, r, ps, ctl)
		}
		if !slices.Contains(r, ps.Leader) || ps.ControllerEpoch != epoch {
			t.Fatalf("%s-%d: %s, want a leader among %v under controller epoch %d", autoTopic, p, ps, r, epoch)
		}
	}
	replaced := strings.Count(readFrom(t, h.logPath(ctl), logFrom), replacedMsg)
	if replaced == 0 {
		t.Fatalf("kzadmind %d re-placed no replica of %s: the broker placed none on it? (log %s)", ctl, autoTopic, h.logPath(ctl))
	}
	t.Logf("broker %d auto-created %s: znode after %s, online after %s; kzadmind re-placed %d partitions off its id; assignment %v",
		b.ID(), autoTopic, created.Round(time.Millisecond), online.Round(time.Millisecond), replaced, a.Partitions)
	s.figs.add("broker auto-create: Metadata → partitions online in ZK", kzadmind, online)
	if err := sized(autoParts, autoPerPart).produce(ctx, h.cluster.Addrs(), autoTopic); err != nil {
		t.Fatal(err)
	}
	if err := sized(autoParts, autoPerPart).consume(ctx, h.cluster.Addrs(), autoTopic); err != nil {
		t.Fatal(err)
	}
}

// autoCreateVia sends b a Metadata request for name that allows
// auto-creation, and succeeds once ZooKeeper holds the topic. The broker
// answers LEADER_NOT_AVAILABLE while the partitions are being created;
// any other error is the broker refusing to create it.
func autoCreateVia(ctx context.Context, h *harness, b *kafka.Broker, name string) error {
	mt, err := kafkatest.TopicMetadata(ctx, b.Addr(), name, true, 5*time.Second)
	if err != nil {
		return err
	}
	code := mt.ErrorCode
	if _, _, err := h.obs.Get(ctx, znodes.TopicPath(name)); err == nil {
		return nil
	} else if !isNoNode(err) {
		return err
	}
	switch code {
	case 0, kerr.LeaderNotAvailable.Code, kerr.UnknownTopicOrPartition.Code: // being created; ask again
		return fmt.Errorf("metadata for %s: %v, not in ZooKeeper yet", name, kerr.ErrorForCode(code))
	default:
		return fmt.Errorf("broker %d refused to auto-create %s: %v", b.ID(), name, kerr.ErrorForCode(code))
	}
}

// assignmentOf reads and decodes /brokers/topics/<name>.
func (h *harness) assignmentOf(t *testing.T, ctx context.Context, name string) znodes.TopicAssignment {
	t.Helper()
	data, _, err := h.obs.Get(ctx, znodes.TopicPath(name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := znodes.DecodeTopicAssignment(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// distinctBrokers reports whether replicas are distinct broker ids (1..3).
func distinctBrokers(replicas []int32) bool {
	for i, r := range replicas {
		if r < 1 || r > 3 || slices.Contains(replicas[:i], r) {
			return false
		}
	}
	return true
}
