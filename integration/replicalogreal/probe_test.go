package replicalogreal

// What real Kafka 3.9.1 ZK brokers answer to ListOffsets(replica -2,
// LATEST), as TestProbeRealBrokers asserts it (Kafka's own ZK controller,
// three brokers, unclean election off):
//
//  1. Every replica answers from its own log, followers included (Kafka
//     reads any replica when the replica id is -2, and applies no
//     isolation level, so LATEST is the log end offset, not the high
//     watermark). With the ISR complete after acks=all writes, all three
//     report the leader's LEO.
//  2. The epoch is NOT that of the replica's last record: LATEST is
//     answered with the partition's current leader epoch, the one the
//     replica learned from its last LeaderAndIsr. After a controlled
//     shutdown shrank the ISR (which bumps the leader epoch under the ZK
//     controller), the leader reports the new epoch though its last record
//     is of epoch 0. Nothing a 3.9 follower serves gives its last written
//     epoch: OffsetForLeaderEpoch is leader-only (fetchOnlyFromLeader =
//     true), and a Fetch as replica -2 is a consumer fetch, leader-only
//     without a rack and bounded by the high watermark. Against stock
//     brokers, compare log end offsets; the epoch only says which
//     leadership the replica last heard of.
//  3. A partition with no leader: the whole ISR died and the one replica
//     left, out of the ISR, restarts. Until the controller's LeaderAndIsr
//     reaches it, it answers UNKNOWN_TOPIC_OR_PARTITION (3), then briefly
//     NOT_LEADER_OR_FOLLOWER (6) while the log loads. Then it answers its
//     own LEO (the records it had when it left the ISR; those written
//     after are lost with their replicas) with error 0, while its
//     Metadata shows leader -1. The epoch is then -1: the broker logs
//     "cannot become follower since the new leader -1 is unavailable",
//     creates the partition and loads its log but never applies an epoch.
//     (Had it followed a leader earlier in the same process, it would
//     report that epoch instead.)

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
)

const (
	topic  = "probe"
	chroot = "/replicalog"
)

// firstRecords and laterRecords are produced to partition 0 before and
// after the survivor leaves the ISR; partition 1 gets p1Records at first.
const (
	firstRecords = 100
	laterRecords = 50
	p1Records    = 60
)

type cluster struct {
	c       *kafka.Cluster
	adm     *kadm.Client
	zkAddr  string
	topicID [16]byte
	prober  replicalog.Prober
}

func TestProbeRealBrokers(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(cancel)
	h := start(t, ctx)

	produce(t, ctx, h, 0, 0, firstRecords)
	produce(t, ctx, h, 1, 0, p1Records)
	// Step 1: with the ISR complete, every replica reports the same log
	// end offset and the leader epoch (0 for a new topic).
	for _, b := range h.c.Brokers {
		infos := h.probe(t, ctx, b)
		want := []int64{firstRecords, p1Records}
		for i, in := range infos {
			// The prober reports no epoch for ListOffsets (the broker's
			// answer is its current leader epoch; see list_offsets.go).
			if in.ErrorCode != 0 || in.LogEndOffset != want[i] || in.LastEpoch != -1 {
				t.Fatalf("broker %d partition %d: %+v, want LEO %d epoch -1", b.ID(), i, in, want[i])
			}
		}
	}

	leader, _ := h.partition(t, ctx, 0)
	survivor := h.pickSurvivor(t, ctx, leader)
	t.Logf("partition 0: leader %d; broker %d leaves the ISR, then the rest die", leader, survivor.ID())
	if _, err := survivor.Stop(); err != nil {
		t.Fatal(err)
	}
	h.waitISR(t, ctx, 0, func(_ int32, isr []int32) bool { return !slices.Contains(isr, survivor.ID()) })
	// Step 2: the ISR shrink gave partition 0 a new leader epoch and no
	// record has been written in it, yet the leader reports it: the epoch
	// is the current one, not that of the last record.
	_, shrunk := h.partition(t, ctx, 0)
	if shrunk <= 0 {
		t.Fatalf("the ISR shrink left leader epoch %d; want a bump", shrunk)
	}
	err := pollUntil(ctx, time.Minute, func() error {
		in := h.probe(t, ctx, h.c.Broker(leader))[0]
		if in.ErrorCode != 0 || in.LogEndOffset != firstRecords || in.LastEpoch != -1 {
			return fmt.Errorf("leader %d answers %+v, want LEO %d epoch -1 (the broker says %d)", leader, in, firstRecords, shrunk)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after the ISR shrink the leader reports epoch %d; its last record is of epoch 0", shrunk)
	produce(t, ctx, h, 0, firstRecords, laterRecords)
	for _, b := range h.c.Brokers {
		if b == survivor {
			continue
		}
		if in := h.probe(t, ctx, b)[0]; in.ErrorCode != 0 || in.LogEndOffset != firstRecords+laterRecords {
			t.Fatalf("broker %d: %+v, want LEO %d", b.ID(), in, firstRecords+laterRecords)
		}
	}

	for _, b := range h.c.Brokers {
		if b != survivor {
			if err := b.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The survivor starts once the dead brokers' registrations expired, so
	// that no LeaderAndIsr names a leader that still looks alive.
	h.waitNoBrokers(t, ctx)
	if err := survivor.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	// Step 3: the survivor is alone, Kafka's controller (itself) cannot
	// elect it (unclean election is off), and it answers its own log.
	// The states it passes through are logged as they change.
	var infos []replicalog.Info
	var last string
	err = pollUntil(ctx, time.Minute, func() error {
		infos = h.probe(t, ctx, survivor)
		leader, epoch, mdErr := h.metadataOf(ctx, survivor, 0)
		state := fmt.Sprintf("metadata leader %d epoch %d (%v); probe %s", leader, epoch, mdErr, brief(infos))
		if state != last {
			t.Logf("broker %d: %s", survivor.ID(), state)
			last = state
		}
		if mdErr != nil || leader != -1 || infos[0].ErrorCode != 0 {
			return fmt.Errorf("%s", state)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("partition 0 never became leaderless with its replica answering: %v", err)
	}
	if in := infos[0]; in.LogEndOffset != firstRecords || in.LastEpoch != -1 {
		t.Fatalf("leaderless partition 0 on broker %d: %+v, want LEO %d epoch -1", survivor.ID(), in, firstRecords)
	}
}

// brief renders probe answers as "p0 LEO/epoch/error ...".
func brief(infos []replicalog.Info) string {
	var s string
	for _, in := range infos {
		s += fmt.Sprintf(" p%d leo=%d epoch=%d err=%d", in.Partition.Index, in.LogEndOffset, in.LastEpoch, in.ErrorCode)
	}
	return s
}

// start runs ZooKeeper and three brokers, and creates the topic with two
// partitions, each on all three brokers.
func start(t *testing.T, ctx context.Context) *cluster {
	t.Helper()
	zks, err := zkserver.Start(ctx, zkserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zks.Close() })
	c, _, _ := kafkatest.StartBrokers(t, ctx, kafkatest.BrokerSet{
		ZooKeeper: zks.Addr() + chroot, Count: 3, Wait: time.Minute,
		Options: kafka.ClusterOptions{Broker: kafka.BrokerOptions{Extra: map[string]string{"unclean.leader.election.enable": "false"}}},
	})
	adm, err := kadm.NewOptClient(kgo.SeedBrokers(c.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(adm.Close)
	created, err := adm.CreateTopic(ctx, 2, 3, nil, topic)
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	h := &cluster{c: c, adm: adm, zkAddr: zks.Addr(), topicID: created.ID, prober: replicalog.New(replicalog.Options{})}
	for p := range int32(2) {
		h.waitISR(t, ctx, p, func(leader int32, isr []int32) bool { return leader >= 0 && len(isr) == 3 })
	}
	return h
}

// probe asks b for both partitions.
func (h *cluster) probe(t *testing.T, ctx context.Context, b *kafka.Broker) []replicalog.Info {
	t.Helper()
	parts := []replicalog.Partition{{Topic: topic, TopicID: h.topicID, Index: 0}, {Topic: topic, TopicID: h.topicID, Index: 1}}
	infos, err := h.prober.Probe(ctx, replicalog.Target{BrokerID: b.ID(), Addr: b.Addr()}, parts)
	if err != nil {
		t.Fatalf("probe broker %d: %v", b.ID(), err)
	}
	return infos
}

// produce writes n records to partition p with acks=all and checks they
// landed at offsets from, from+1, ...
func produce(t *testing.T, ctx context.Context, h *cluster, p int32, from, n int) {
	t.Helper()
	if err := kafkatest.ProduceNumbered(ctx, h.c.Addrs(), topic, p, from, n); err != nil {
		t.Fatal(err)
	}
}

// partition returns a partition's leader and leader epoch from Metadata.
func (h *cluster) partition(t *testing.T, ctx context.Context, p int32) (leader, epoch int32) {
	t.Helper()
	md, err := h.adm.Metadata(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	pd := md.Topics[topic].Partitions[p]
	return pd.Leader, pd.LeaderEpoch
}

// waitISR waits until the partition's leader and ISR satisfy ok.
func (h *cluster) waitISR(t *testing.T, ctx context.Context, p int32, ok func(leader int32, isr []int32) bool) {
	t.Helper()
	err := pollUntil(ctx, time.Minute, func() error {
		md, err := h.adm.Metadata(ctx, topic)
		if err != nil {
			return err
		}
		pd, found := md.Topics[topic].Partitions[p]
		if !found || !ok(pd.Leader, pd.ISR) {
			return fmt.Errorf("partition %d: %+v", p, pd)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pickSurvivor returns a broker that is not the partition's leader nor
// Kafka's controller, so stopping it moves nothing but the ISR.
func (h *cluster) pickSurvivor(t *testing.T, ctx context.Context, leader int32) *kafka.Broker {
	t.Helper()
	md, err := h.adm.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range h.c.Brokers {
		if b.ID() != leader && b.ID() != md.Controller {
			return b
		}
	}
	t.Fatalf("no broker is neither leader %d nor controller %d", leader, md.Controller)
	return nil
}

// waitNoBrokers waits until /brokers/ids is empty.
func (h *cluster) waitNoBrokers(t *testing.T, ctx context.Context) {
	t.Helper()
	zc, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{h.zkAddr}, Chroot: chroot, SessionTimeout: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer zc.Close()
	err = pollUntil(ctx, time.Minute, func() error {
		ids, _, err := zc.Children(ctx, "/brokers/ids")
		if err == nil && len(ids) > 0 {
			err = fmt.Errorf("brokers %v still registered", ids)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// metadataOf asks b alone for the partition's leader (-1 for none) and
// leader epoch.
func (h *cluster) metadataOf(ctx context.Context, b *kafka.Broker, p int32) (leader, epoch int32, err error) {
	mt, err := kafkatest.TopicMetadata(ctx, b.Addr(), topic, false, 0)
	if err != nil {
		return 0, 0, err
	}
	for _, mp := range mt.Partitions {
		if mp.Partition == p {
			return mp.Leader, mp.LeaderEpoch, nil
		}
	}
	return 0, 0, fmt.Errorf("topic error %d", mt.ErrorCode)
}

// pollUntil retries check every 100ms until it succeeds or timeout passes.
func pollUntil(ctx context.Context, timeout time.Duration, check func() error) error {
	return waitfor.Until(ctx, timeout, 100*time.Millisecond, check)
}
