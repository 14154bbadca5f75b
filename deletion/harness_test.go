package deletion

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// sharedZK is the package's one ZooKeeper server, started by the first test
// that needs it, so the pure tests run without Java.
var sharedZK zktest.Shared

func TestMain(m *testing.M) { os.Exit(sharedZK.Run(m)) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connectZK opens a client under a chroot of its own, with Kafka's
// top-level znodes and a /controller_epoch, and returns the epoch's
// zkVersion that fences the test's writes.
func connectZK(t *testing.T) (*zkadmin.Client, int32) {
	t.Helper()
	zk := sharedZK.ConnectWith(t, sharedZK.Chroot(t, "deletion"), zktest.Session{TopLevel: true})
	if _, err := zk.Create(testCtx(t), znodes.ControllerEpochPath, []byte("1"), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	return zk, 0
}

// registerBrokers creates /brokers/ids/<id> for each id.
func registerBrokers(t *testing.T, zk *zkadmin.Client, ids ...int32) {
	t.Helper()
	for _, id := range ids {
		reg := znodes.NewBrokerRegistration([]znodes.Endpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT",
			Host: "localhost", Port: 9000 + id}}, nil, -1, time.Now())
		data, err := reg.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := zk.Create(testCtx(t), znodes.BrokerIDPath(id), data, zkadmin.Ephemeral); err != nil {
			t.Fatal(err)
		}
	}
}

// partitionStateOps creates what Kafka's controller creates for a new
// topic: partitions, partitions/<p> and partitions/<p>/state.
func partitionStateOps(t *testing.T, topic string, asg [][]int32) []zkadmin.Op {
	t.Helper()
	ops := []zkadmin.Op{zkadmin.CreateOp(znodes.PartitionsPath(topic), nil, zkadmin.Persistent)}
	for p, replicas := range asg {
		st := znodes.PartitionState{Version: 1, Leader: replicas[0], ISR: replicas, ControllerEpoch: 1}
		data, err := st.Encode()
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops,
			zkadmin.CreateOp(znodes.PartitionPath(topic, int32(p)), nil, zkadmin.Persistent),
			zkadmin.CreateOp(znodes.PartitionStatePath(topic, int32(p)), data, zkadmin.Persistent))
	}
	return ops
}

// loadCluster builds the controller's view from ZooKeeper: registered
// brokers and every topic's assignment.
func loadCluster(t *testing.T, zk *zkadmin.Client) *fakeCluster {
	t.Helper()
	ctx := testCtx(t)
	ids, _, err := zk.Children(ctx, znodes.BrokerIDsPath)
	if err != nil {
		t.Fatal(err)
	}
	c := newFakeCluster()
	for _, id := range ids {
		b, err := znodes.ParseBrokerID(id)
		if err != nil {
			t.Fatal(err)
		}
		c.Brokers[b] = true
	}
	topics, _, err := zk.Children(ctx, znodes.TopicsPath)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, len(topics))
	for i, name := range topics {
		paths[i] = znodes.TopicPath(name)
	}
	for i, r := range zk.GetMany(ctx, paths, 0) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		a, err := znodes.DecodeTopicAssignment(topics[i], r.Data)
		if err != nil {
			t.Fatal(err)
		}
		c.topics[topics[i]] = a.Partitions
	}
	return c
}

// eventQueue is an unbounded queue of events fed by the fake brokers and
// the retry timers, drained by the test's event loop.
type eventQueue struct {
	mu     sync.Mutex
	items  []Event
	notify chan struct{}
}

func newEventQueue() *eventQueue { return &eventQueue{notify: make(chan struct{}, 1)} }

func (q *eventQueue) push(ev Event) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

func (q *eventQueue) next(ctx context.Context) (Event, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			ev := q.items[0]
			q.items = q.items[1:]
			q.mu.Unlock()
			return ev, nil
		}
		q.mu.Unlock()
		select {
		case <-q.notify:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// harness is a minimal controller: an event loop that steps the manager
// and carries out its effects against a real ZooKeeper and fake brokers
// that answer StopReplica asynchronously.
type harness struct {
	t        *testing.T
	zk       *zkadmin.Client
	epochVer int32
	c        *fakeCluster
	m        *Manager
	q        *eventQueue
	// refuse, when set, makes a broker answer an error for a replica.
	refuse func(r Replica) error
	// onRemove, when set, replaces the znode removal (to cut it short).
	onRemove func(ctx context.Context, topics []string) Result
	sent     atomic.Int64
	timers   sync.WaitGroup
	brokers  sync.WaitGroup
}

func newHarness(t *testing.T, zk *zkadmin.Client, epochVer int32, opts Options) *harness {
	h := &harness{t: t, zk: zk, epochVer: epochVer, c: loadCluster(t, zk), m: New(opts), q: newEventQueue()}
	t.Cleanup(func() { h.brokers.Wait(); h.timers.Wait() })
	return h
}

func (h *harness) write(ctx context.Context, ops []zkadmin.Op) ([]zkadmin.OpResult, error) {
	return h.zk.FencedMulti(ctx, h.epochVer, ops...)
}

// pushMarkers reads /admin/delete_topics and queues a Markers event.
func (h *harness) pushMarkers(ctx context.Context) {
	markers, _, err := h.zk.Children(ctx, znodes.DeleteTopicsPath)
	if err != nil {
		h.t.Fatal(err)
	}
	h.q.push(Markers{Topics: markers})
}

// run steps events until done holds after a step.
func (h *harness) run(ctx context.Context, done func() bool) {
	h.t.Helper()
	for !done() {
		ev, err := h.q.next(ctx)
		if err != nil {
			h.t.Fatalf("waiting for an event: %v (queued: %v)", err, h.m.Statuses(h.c))
		}
		if err := Apply(ctx, h.m.Step(h.c, ev), h); err != nil {
			h.t.Fatal(err)
		}
	}
}

func (h *harness) InvalidMarker(_ context.Context, e InvalidMarker) error { return e.Err }

func (h *harness) RemoveMarkers(ctx context.Context, e RemoveMarkers) error {
	r := RemoveMarkerZnodes(ctx, h.zk, h.write, e.Topics, e.Reason.GuardAbsent(), ApplyOptions{})
	if r.Err != nil || len(r.Failed) > 0 {
		return fmt.Errorf("remove markers: %v %v", r.Err, r.Failed)
	}
	return nil
}

func (h *harness) Enqueue(context.Context, Enqueue) error                       { return nil }
func (h *harness) StartTopicDeletion(context.Context, StartTopicDeletion) error { return nil }
func (h *harness) UpdateMetadata(context.Context, UpdateMetadata) error         { return nil }
func (h *harness) SetReplicaStates(context.Context, SetReplicaStates) error     { return nil }
func (h *harness) StopReplicas(context.Context, StopReplicas) error             { return nil }

// DeleteReplicas hands each broker its partitions; each fake broker answers
// on its own goroutine, as real brokers answer through their channels.
func (h *harness) DeleteReplicas(_ context.Context, e DeleteReplicas) error {
	byBroker := map[int32][]TopicPartition{}
	for _, r := range e.Replicas {
		byBroker[r.Broker] = append(byBroker[r.Broker], r.TopicPartition)
	}
	h.sent.Add(int64(len(e.Replicas)))
	for b, tps := range byBroker {
		h.brokers.Add(1)
		go func() {
			defer h.brokers.Done()
			resp := StopReplicaResponse{Broker: b}
			for _, tp := range tps {
				if err := h.refusal(Replica{TopicPartition: tp, Broker: b}); err != nil {
					if resp.Failed == nil {
						resp.Failed = map[TopicPartition]error{}
					}
					resp.Failed[tp] = err
					continue
				}
				resp.Deleted = append(resp.Deleted, tp)
			}
			h.q.push(resp)
		}()
	}
	return nil
}

func (h *harness) refusal(r Replica) error {
	if h.refuse == nil {
		return nil
	}
	return h.refuse(r)
}

// RemoveTopics removes the znodes, drops the topics from the view (as the
// controller's context would) and reports back.
func (h *harness) RemoveTopics(ctx context.Context, e RemoveTopics) error {
	var r Result
	if h.onRemove != nil {
		r = h.onRemove(ctx, e.Topics)
	} else {
		r = RemoveTopicZnodes(ctx, h.zk, h.write, e.Topics, ApplyOptions{})
	}
	if r.Err != nil {
		return r.Err
	}
	for _, name := range r.Removed {
		delete(h.c.topics, name)
	}
	h.q.push(TopicsRemoved{Removed: r.Removed, Failed: r.Failed})
	return nil
}

func (h *harness) RetryAfter(_ context.Context, e RetryAfter) error {
	h.timers.Add(1)
	time.AfterFunc(e.Delay, func() {
		defer h.timers.Done()
		h.q.push(Retry{Topic: e.Topic, Attempt: e.Attempt})
	})
	return nil
}

// exists reports whether a znode exists.
func exists(t *testing.T, zk *zkadmin.Client, path string) bool {
	t.Helper()
	ok, _, err := zk.Exists(testCtx(t), path)
	if err != nil && !errors.Is(err, zkadmin.ErrNoNode) {
		t.Fatal(err)
	}
	return ok
}
