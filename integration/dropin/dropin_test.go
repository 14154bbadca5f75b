package dropin

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Node ids of the kzadmind instances: never a broker's id (brokers are
// 1..3).
const (
	firstID   int32 = 3000 // in-process, holds /controller before any broker starts
	childID   int32 = 3001 // child process, killed with SIGKILL
	standbyID int32 = 3002 // in-process standby that takes over from the child
)

// dropin is the state the steps of TestDropIn share: one ZooKeeper, one
// cluster of three brokers, the controllers, one producer.
type dropin struct {
	h          *harness
	figs       *figures
	featureVer int32 // /feature's version as kzadmind left it
	first      *daemon.Daemon
	standby    *daemon.Daemon
	tr         *traffic
	assignment [][]int32
}

// TestDropIn runs the whole drop-in scenario on one cluster, step by step;
// a failed step stops the ones after it.
func TestDropIn(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s := &dropin{h: newHarness(t, ctx), figs: newFigures()}
	s.first = s.h.startDaemon(t, ctx, firstID)
	waitReady(t, ctx, s.first, firstID)
	s.h.startBrokers(t, ctx, 3)
	s.h.waitBrokersFollow(t, ctx, firstID)
	s.featureVer = s.h.checkFeature(t, ctx)
	s.h.logBrokerFeatures(t, ctx, 1)
	// Created here: a sub-test's cleanup would close it after that step.
	s.tr = newTraffic(t, s.h.cluster.Addrs(), filepath.Join(s.h.dir, "producer.log"))
	defer s.figs.log(t)
	steps := []struct {
		name string
		run  func(*testing.T, context.Context)
	}{
		{"CreateProduceConsume", s.createProduceConsume},
		{"KillLeader", s.killLeader},
		{"ControlledShutdown", s.controlledShutdown},
		{"Reassign", s.reassign},
		{"AutoCreate", s.autoCreate},
		{"DeleteTopic", s.deleteTopic},
		{"StandbyTakesOver", s.standbyTakesOver},
		{"WarmStandbyTakesOver", s.warmStandbyTakesOver},
		{"PausedControllerResumes", s.pausedControllerResumes},
		{"KafkaController", s.kafkaController},
		{"KzadmindReclaims", s.kzadmindReclaims},
	}
	for _, st := range steps {
		if !t.Run(st.name, func(t *testing.T) { st.run(t, ctx) }) {
			break
		}
	}
}

// createProduceConsume: a topic created through zkadmin (RF 3, rack-aware
// over r1..r3) gets leaders from kzadmind; 10k records produced
// idempotently are all consumed back.
func (s *dropin) createProduceConsume(t *testing.T, ctx context.Context) {
	h := s.h
	res, err := h.admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: topic, Partitions: partitions, ReplicationFactor: replicationFactor})
	if err != nil {
		t.Fatal(err)
	}
	s.assignment = res.Assignment
	for p, r := range s.assignment {
		if len(r) != replicationFactor || slices.Contains(r, firstID) {
			t.Fatalf("%s-%d placed on %v", topic, p, r)
		}
	}
	_, epoch, err := h.controller(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := h.waitStates(t, ctx, "new topic online", time.Minute, allInSync)
	for p, ps := range st {
		if ps.Leader != s.assignment[p][0] || ps.LeaderEpoch != 0 || ps.ControllerEpoch != epoch {
			t.Fatalf("%s-%d created as %s, want leader %d, epoch 0, controller epoch %d", topic, p, ps, s.assignment[p][0], epoch)
		}
	}
	h.waitBrokersKnow(t, ctx, st)
	began := time.Now()
	if err := s.tr.produce(ctx, 10000); err != nil {
		t.Fatalf("produce: %v", err)
	}
	t.Logf("produced 10000 records idempotently in %s", since(began))
	h.checkProducerIDs(t, ctx)
	s.tr.verify(t, ctx, h.cluster.Addrs())
	s.tr.start()
}

// killLeader: kill -9 of a leader, rejoin through AlterPartition, then a
// manual preferred election gives the broker its leadership back.
func (s *dropin) killLeader(t *testing.T, ctx context.Context) {
	s.h.killAndRejoin(t, ctx, s.tr, s.figs, kzadmind, -1)
	s.h.electPreferred(t, ctx, s.assignment)
}

// controlledShutdown: SIGTERM of a leader; once it is back, kzadmind's auto
// leader rebalance (every 5 s here) gives its leadership back.
func (s *dropin) controlledShutdown(t *testing.T, ctx context.Context) {
	s.h.controlledShutdownAndRebalance(t, ctx, s)
}

func (h *harness) controlledShutdownAndRebalance(t *testing.T, ctx context.Context, s *dropin) {
	victim := h.sigtermAndReturn(t, ctx, s.tr, s.figs, kzadmind, -1)
	began := time.Now()
	h.waitStates(t, ctx, "auto rebalance", 4*rebalanceInterval+30*time.Second, preferredLeaders(s.assignment))
	t.Logf("auto rebalance gave broker %d its leadership back %s after it rejoined", victim, since(began))
}

// checkProducerIDs asks every broker for a producer id, as an idempotent
// producer does: at IBP 3.0 and later a broker has ids only from blocks
// the controller allocated (AllocateProducerIds), so an answer proves the
// RPC works. The ids must differ, and /latest_producer_id_block must hold
// a block of 1000 at or beyond all of them.
func (h *harness) checkProducerIDs(t *testing.T, ctx context.Context) {
	t.Helper()
	seen := map[int64]int32{}
	var top int64
	for _, b := range h.cluster.Brokers {
		cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		// COORDINATOR_LOAD_IN_PROGRESS while the broker waits for its
		// first block.
		var r *kmsg.InitProducerIDResponse
		err = pollUntil(ctx, 30*time.Second, 50*time.Millisecond, func() error {
			resp, err := cl.SeedBrokers()[0].Request(ctx, kmsg.NewPtrInitProducerIDRequest())
			if err != nil {
				return err
			}
			r = resp.(*kmsg.InitProducerIDResponse)
			return kerr.ErrorForCode(r.ErrorCode)
		})
		cl.Close()
		if err != nil || r.ProducerEpoch != 0 {
			t.Fatalf("InitProducerId to broker %d: %v (log %s)", b.ID(), err, b.LogPath())
		}
		if other, dup := seen[r.ProducerID]; dup {
			t.Fatalf("brokers %d and %d both handed out producer id %d", other, b.ID(), r.ProducerID)
		}
		seen[r.ProducerID], top = b.ID(), max(top, r.ProducerID)
	}
	data, _, err := h.obs.Get(ctx, znodes.LatestProducerIDBlockPath)
	if err != nil {
		t.Fatal(err)
	}
	block, err := znodes.DecodeProducerIDBlock(data)
	if err != nil || block.Size() != znodes.ProducerIDBlockSize || block.Start%znodes.ProducerIDBlockSize != 0 || block.End < top {
		t.Fatalf("/latest_producer_id_block = %+v (%v); brokers handed out ids up to %d", block, err, top)
	}
	t.Logf("brokers handed out producer ids %v; last block %d..%d went to node %d", seen, block.Start, block.End, block.BrokerID)
}
