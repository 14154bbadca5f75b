package brokersim

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/internal/kafkaconn"
	"github.com/kzadmin/kzadmin/znodes"
)

// ctl plays the controller's side of the control requests against one
// broker, over the package's own client connection.
type ctl struct {
	tb testing.TB
	c  *kafkaconn.Conn
}

func dialBroker(tb testing.TB, b *Broker) *ctl {
	tb.Helper()
	c, err := dialKafka(testCtx(tb), b.Addr(), "test-controller", 30*time.Second)
	if err != nil {
		tb.Fatalf("dial broker %d: %v", b.ID(), err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return &ctl{tb: tb, c: c}
}

func (c *ctl) send(req kmsg.Request) kmsg.Response {
	c.tb.Helper()
	resp, err := c.c.RoundTrip(testCtx(c.tb), req)
	if err != nil {
		c.tb.Fatalf("send %s: %v", kmsg.NameForKey(req.Key()), err)
	}
	return resp
}

// part is one partition's leadership as a test controller sends it.
type part struct {
	topic       string
	partition   int32
	topicID     znodes.UUID
	leader      int32
	leaderEpoch int32
	isr         []int32
	replicas    []int32
	zkVersion   int32
}

// lairReq builds a LeaderAndIsr v7 (IBP 3.4+), grouped by topic in order.
func lairReq(brokerEpoch int64, controllerEpoch int32, parts ...part) *kmsg.LeaderAndISRRequest {
	req := kmsg.NewPtrLeaderAndISRRequest()
	req.Version, req.ControllerID, req.ControllerEpoch, req.BrokerEpoch = 7, 1000, controllerEpoch, brokerEpoch
	for _, p := range parts {
		if n := len(req.TopicStates); n == 0 || req.TopicStates[n-1].Topic != p.topic {
			t := kmsg.NewLeaderAndISRRequestTopicState()
			t.Topic, t.TopicID = p.topic, p.topicID
			req.TopicStates = append(req.TopicStates, t)
		}
		s := kmsg.NewLeaderAndISRRequestTopicPartition()
		s.Partition, s.ControllerEpoch, s.Leader, s.LeaderEpoch = p.partition, controllerEpoch, p.leader, p.leaderEpoch
		s.ISR, s.ZKVersion, s.Replicas = p.isr, p.zkVersion, p.replicas
		t := &req.TopicStates[len(req.TopicStates)-1]
		t.PartitionStates = append(t.PartitionStates, s)
	}
	return req
}

// lairCodes flattens a LeaderAndIsr v5+ response's partition errors.
func lairCodes(resp kmsg.Response) (top int16, codes []int16) {
	r := resp.(*kmsg.LeaderAndISRResponse)
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			codes = append(codes, p.ErrorCode)
		}
	}
	for _, p := range r.Partitions {
		codes = append(codes, p.ErrorCode)
	}
	return r.ErrorCode, codes
}

// liveEntry is an UpdateMetadata v8 live broker on PLAINTEXT.
func liveEntry(id int32, addr string, rack *string) kmsg.UpdateMetadataRequestLiveBroker {
	host, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	lb := kmsg.NewUpdateMetadataRequestLiveBroker()
	lb.ID, lb.Rack = id, rack
	ep := kmsg.NewUpdateMetadataRequestLiveBrokerEndpoint()
	ep.Host, ep.Port, ep.ListenerName, ep.SecurityProtocol = host, int32(port), ListenerName, 0
	lb.Endpoints = []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{ep}
	return lb
}

func brokerEntries(bs ...*Broker) []kmsg.UpdateMetadataRequestLiveBroker {
	var out []kmsg.UpdateMetadataRequestLiveBroker
	for _, b := range bs {
		var rack *string
		if r := b.Rack(); r != "" {
			rack = &r
		}
		out = append(out, liveEntry(b.ID(), b.Addr(), rack))
	}
	return out
}

// umReq builds an UpdateMetadata v8 (IBP 3.4+).
func umReq(brokerEpoch int64, controllerEpoch, controllerID int32, live []kmsg.UpdateMetadataRequestLiveBroker, parts ...part) *kmsg.UpdateMetadataRequest {
	req := kmsg.NewPtrUpdateMetadataRequest()
	req.Version, req.ControllerID, req.ControllerEpoch, req.BrokerEpoch = 8, controllerID, controllerEpoch, brokerEpoch
	req.LiveBrokers = live
	for _, p := range parts {
		if n := len(req.TopicStates); n == 0 || req.TopicStates[n-1].Topic != p.topic {
			t := kmsg.NewUpdateMetadataRequestTopicState()
			t.Topic, t.TopicID = p.topic, p.topicID
			req.TopicStates = append(req.TopicStates, t)
		}
		s := kmsg.NewUpdateMetadataRequestTopicPartition()
		s.Partition, s.ControllerEpoch, s.Leader, s.LeaderEpoch = p.partition, controllerEpoch, p.leader, p.leaderEpoch
		s.ISR, s.ZKVersion, s.Replicas = p.isr, p.zkVersion, p.replicas
		t := &req.TopicStates[len(req.TopicStates)-1]
		t.PartitionStates = append(t.PartitionStates, s)
	}
	return req
}

// stopReq builds a StopReplica v4.
func stopReq(brokerEpoch int64, controllerEpoch int32, del bool, leaderEpoch int32, tps ...TopicPartition) *kmsg.StopReplicaRequest {
	req := kmsg.NewPtrStopReplicaRequest()
	req.Version, req.ControllerID, req.ControllerEpoch, req.BrokerEpoch = 4, 1000, controllerEpoch, brokerEpoch
	for _, tp := range tps {
		t := kmsg.NewStopReplicaRequestTopic()
		t.Topic = tp.Topic
		s := kmsg.NewStopReplicaRequestTopicPartitionState()
		s.Partition, s.LeaderEpoch, s.Delete = tp.Partition, leaderEpoch, del
		t.PartitionStates = append(t.PartitionStates, s)
		req.Topics = append(req.Topics, t)
	}
	return req
}

// fakeController records the broker-to-controller requests it receives
// and answers them with the configured functions.
type fakeController struct {
	id   int32
	addr string

	mu        sync.Mutex
	alters    []*kmsg.AlterPartitionRequest
	shutdowns []*kmsg.ControlledShutdownRequest
	onAlter   func(*kmsg.AlterPartitionRequest) *kmsg.AlterPartitionResponse
	onStop    func(n int, req *kmsg.ControlledShutdownRequest) *kmsg.ControlledShutdownResponse
	changed   chan struct{}
}

func startFakeController(tb testing.TB, id int32) *fakeController {
	tb.Helper()
	f := &fakeController{id: id, changed: make(chan struct{}), onAlter: acceptAlter}
	f.onStop = func(int, *kmsg.ControlledShutdownRequest) *kmsg.ControlledShutdownResponse {
		return kmsg.NewPtrControlledShutdownResponse()
	}
	mux := wire.NewMux()
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(mux.HandleFunc(wire.VersionRange{Key: kmsg.AlterPartition.Int16(), Max: 3}, f.handleAlter))
	must(mux.HandleFunc(wire.VersionRange{Key: kmsg.ControlledShutdown.Int16(), Max: 3}, f.handleStop))
	srv, err := wire.New(wire.Config{Mux: mux})
	must(err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	f.addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return f
}

func (f *fakeController) handleAlter(_ context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.AlterPartitionRequest)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.alters = append(f.alters, r)
	close(f.changed)
	f.changed = make(chan struct{})
	return f.onAlter(r), nil
}

func (f *fakeController) handleStop(_ context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.ControlledShutdownRequest)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shutdowns = append(f.shutdowns, r)
	close(f.changed)
	f.changed = make(chan struct{})
	return f.onStop(len(f.shutdowns), r), nil
}

func (f *fakeController) setAlter(fn func(*kmsg.AlterPartitionRequest) *kmsg.AlterPartitionResponse) {
	f.mu.Lock()
	f.onAlter = fn
	f.mu.Unlock()
}

func (f *fakeController) setStop(fn func(int, *kmsg.ControlledShutdownRequest) *kmsg.ControlledShutdownResponse) {
	f.mu.Lock()
	f.onStop = fn
	f.mu.Unlock()
}

// waitAlters waits until at least n AlterPartition requests arrived.
func (f *fakeController) waitAlters(tb testing.TB, n int) []*kmsg.AlterPartitionRequest {
	tb.Helper()
	deadline := time.After(30 * time.Second)
	for {
		f.mu.Lock()
		got, ch := append([]*kmsg.AlterPartitionRequest(nil), f.alters...), f.changed
		f.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-ch:
		case <-deadline:
			tb.Fatalf("got %d AlterPartition requests, want %d", len(got), n)
		}
	}
}

func (f *fakeController) liveEntry() kmsg.UpdateMetadataRequestLiveBroker {
	return liveEntry(f.id, f.addr, nil)
}

// alterISR returns the proposed ISR of a request partition, whichever
// version carried it.
func alterISR(p kmsg.AlterPartitionRequestTopicPartition) []int32 {
	if p.NewEpochISR == nil {
		return p.NewISR
	}
	var out []int32
	for _, e := range p.NewEpochISR {
		out = append(out, e.BrokerID)
	}
	return out
}

// acceptAlter answers as a controller that accepts every change and bumps
// each partition epoch by one.
func acceptAlter(req *kmsg.AlterPartitionRequest) *kmsg.AlterPartitionResponse {
	resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewAlterPartitionResponseTopic()
		rt.Topic, rt.TopidID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewAlterPartitionResponseTopicPartition()
			rp.Partition, rp.LeaderID, rp.LeaderEpoch = p.Partition, req.BrokerID, p.LeaderEpoch
			rp.ISR, rp.PartitionEpoch, rp.LeaderRecoveryState = alterISR(p), p.PartitionEpoch+1, p.LeaderRecoveryState
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
