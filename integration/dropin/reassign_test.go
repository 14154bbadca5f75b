package dropin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The topic the reassignment step moves. RF 2 over three brokers, so that
// each partition has a broker without a replica to move to.
const (
	moved        = "dropin-moved"
	movedParts   = 2
	movedRF      = 2
	movedPerPart = 2000
	// movedValue is each record's value size: 2000 records of 1 KiB give
	// every partition about 2 MB of log to copy.
	movedValue = 1024
)

// move is one partition's reassignment: from is the replica dropped
// (the preferred leader, so that leadership must move too), to the broker
// that had no replica; target puts to first, so that Kafka's reassignment
// election makes it the leader.
type move struct {
	p        int32
	from, to int32
	target   []int32
}

// reassign: a topic with records (RF 2) has each partition moved off its
// leader onto the broker that had no replica, partition 0 through the
// legacy /admin/reassign_partitions znode (zkadmin) and partition 1
// through AlterPartitionReassignments sent to kzadmind, both at once. The
// data follows: the new broker leads with the whole log, the dropped
// replica's directory goes, the znodes hold the target with nothing
// pending, and a consumer reads every record back from the new leaders.
func (s *dropin) reassign(t *testing.T, ctx context.Context) {
	h := s.h
	res, err := h.admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: moved, Partitions: movedParts, ReplicationFactor: movedRF})
	if err != nil {
		t.Fatal(err)
	}
	h.waitOnline(t, ctx, moved, movedParts, movedRF)
	began := time.Now()
	if err := sized(movedParts, movedPerPart).produce(ctx, h.cluster.Addrs(), moved); err != nil {
		t.Fatal(err)
	}
	t.Logf("produced %d records of %d bytes to each partition of %s in %s", movedPerPart, movedValue, moved, since(began))
	moves := planMoves(t, res.Assignment)

	began = time.Now()
	legacy := []znodes.ReassignmentEntry{{Topic: moved, Partition: moves[0].p, Replicas: moves[0].target}}
	if _, err := h.admin.StartReassignment(ctx, legacy, false); err != nil {
		t.Fatalf("legacy reassignment: %v", err)
	}
	if err := alterThrough(ctx, s.active().KafkaAddr(), moves[1]); err != nil {
		t.Fatal(err)
	}
	h.waitMoved(t, ctx, moves)
	took := time.Since(began)
	if err := listedNone(ctx, s.active().KafkaAddr()); err != nil {
		t.Fatal(err)
	}
	t.Logf("reassigned %s (%v): done in ZooKeeper after %s", moved, moves, took.Round(time.Millisecond))
	s.figs.add(fmt.Sprintf("reassignment, %d × %.1f MB moved: request → done in ZK", movedParts, movedPerPart*movedValue/1e6), kzadmind, took)
	for _, m := range moves {
		h.checkMovedDirs(t, ctx, m)
	}
	began = time.Now()
	if err := sized(movedParts, movedPerPart).consume(ctx, h.cluster.Addrs(), moved); err != nil {
		t.Fatalf("after the reassignment: %v", err)
	}
	t.Logf("consumed all %d records back from the new leaders in %s", movedParts*movedPerPart, since(began))
}

// planMoves picks, for each partition, the broker without a replica.
func planMoves(t *testing.T, assignment [][]int32) []move {
	t.Helper()
	var out []move
	for p, r := range assignment {
		var to int32 = -1
		for b := int32(1); b <= 3; b++ {
			if !slices.Contains(r, b) {
				to = b
			}
		}
		if len(r) != movedRF || to < 0 {
			t.Fatalf("%s-%d placed on %v", moved, p, r)
		}
		out = append(out, move{p: int32(p), from: r[0], to: to, target: []int32{to, r[1]}})
	}
	return out
}

func (m move) String() string { return fmt.Sprintf("p%d %d→%d %v", m.p, m.from, m.to, m.target) }

// waitMoved waits until ZooKeeper holds every move done: the assignment is
// the target with nothing adding or removing, the state names the new
// broker leader with the target as ISR, and the legacy request is gone.
func (h *harness) waitMoved(t *testing.T, ctx context.Context, moves []move) {
	t.Helper()
	err := pollUntil(ctx, 2*time.Minute, 20*time.Millisecond, func() error {
		data, _, err := h.obs.Get(ctx, znodes.TopicPath(moved))
		if err != nil {
			return err
		}
		a, err := znodes.DecodeTopicAssignment(moved, data)
		if err != nil {
			return err
		}
		st, err := h.statesOf(ctx, moved, movedParts)
		if err != nil {
			return err
		}
		for _, m := range moves {
			isr := slices.Sorted(slices.Values(st[m.p].ISR))
			if !slices.Equal(a.Partitions[m.p], m.target) || len(a.AddingReplicas[m.p]) > 0 || len(a.RemovingReplicas[m.p]) > 0 {
				return fmt.Errorf("%s-%d assigned %v (adding %v, removing %v), want %v", moved, m.p,
					a.Partitions[m.p], a.AddingReplicas[m.p], a.RemovingReplicas[m.p], m.target)
			}
			if st[m.p].Leader != m.to || !slices.Equal(isr, slices.Sorted(slices.Values(m.target))) {
				return fmt.Errorf("%s-%d: %s, want leader %d and ISR %v", moved, m.p, st[m.p], m.to, m.target)
			}
		}
		if _, _, err := h.obs.Get(ctx, znodes.ReassignPartitionsPath); !isNoNode(err) {
			return fmt.Errorf("%s still there (%v)", znodes.ReassignPartitionsPath, err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reassignment never completed: %v", err)
	}
}

// checkMovedDirs checks the log dirs: the new broker holds the partition
// with at least the bytes produced, and the dropped one's directory is
// gone (after log.segment.delete.delay.ms).
func (h *harness) checkMovedDirs(t *testing.T, ctx context.Context, m move) {
	t.Helper()
	dir := fmt.Sprintf("%s-%d", moved, m.p)
	size, err := logBytes(filepath.Join(h.cluster.Broker(m.to).LogDir(), dir))
	if err != nil || size < movedPerPart*movedValue {
		t.Fatalf("broker %d holds %d bytes of %s (%v), want at least %d", m.to, size, dir, err, movedPerPart*movedValue)
	}
	from := h.cluster.Broker(m.from).LogDir()
	err = pollUntil(ctx, 30*time.Second, 20*time.Millisecond, func() error {
		entries, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if p, ok := partitionDir(e.Name(), moved); ok && int32(p) == m.p {
				return fmt.Errorf("broker %d still has %s", m.from, e.Name())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the dropped replica stayed: %v", err)
	}
	t.Logf("%s: broker %d holds %d bytes of log; broker %d deleted its replica", dir, m.to, size, m.from)
}

// logBytes sums the sizes of the .log segment files in a partition dir.
func logBytes(dir string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return 0, err
		}
		n += fi.Size()
	}
	return n, nil
}

// alterThrough sends AlterPartitionReassignments for one move to the
// Kafka listener at addr (kzadmind's) and checks the answer.
func alterThrough(ctx context.Context, addr string, m move) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	rt.Topic = moved
	rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
	rp.Partition, rp.Replicas = m.p, m.target
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		return fmt.Errorf("AlterPartitionReassignments to %s: %w", addr, err)
	}
	r := resp.(*kmsg.AlterPartitionAssignmentsResponse)
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return fmt.Errorf("AlterPartitionReassignments to %s: %w", addr, err)
	}
	if len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 1 {
		return fmt.Errorf("AlterPartitionReassignments to %s: %+v", addr, r.Topics)
	}
	if err := kerr.ErrorForCode(r.Topics[0].Partitions[0].ErrorCode); err != nil {
		return fmt.Errorf("AlterPartitionReassignments %s-%d to %s: %w", moved, m.p, addr, err)
	}
	return nil
}

// listedNone asks kzadmind for the reassignments in progress of the
// topic: there must be none.
func listedNone(ctx context.Context, addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrListPartitionReassignmentsRequest()
	rt := kmsg.NewListPartitionReassignmentsRequestTopic()
	rt.Topic = moved
	for p := range int32(movedParts) {
		rt.Partitions = append(rt.Partitions, p)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		return fmt.Errorf("ListPartitionReassignments to %s: %w", addr, err)
	}
	r := resp.(*kmsg.ListPartitionReassignmentsResponse)
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil || len(r.Topics) != 0 {
		return fmt.Errorf("ListPartitionReassignments to %s: %v, %+v", addr, err, r.Topics)
	}
	return nil
}

// waitOnline waits until each of the n partitions of name has a leader and
// a full ISR of rf replicas in ZooKeeper.
func (h *harness) waitOnline(t *testing.T, ctx context.Context, name string, n int32, rf int) []pstate {
	t.Helper()
	var last []pstate
	err := pollUntil(ctx, time.Minute, 10*time.Millisecond, func() error {
		st, err := h.statesOf(ctx, name, n)
		if err != nil {
			return err
		}
		last = st
		for p, ps := range st {
			if ps.Leader < 0 || len(ps.ISR) != rf {
				return fmt.Errorf("%s-%d: %s", name, p, ps)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s never came online: %v", name, err)
	}
	return last
}
