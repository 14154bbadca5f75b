package replicalog

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// fakeBroker serves GetReplicaLogInfo and/or ListOffsets from a table of
// log positions, records what it was asked and can cap partitions per
// GetReplicaLogInfo request as the seed's limit does.
type fakeBroker struct {
	addr string

	mu       sync.Mutex
	limit    int // partitions served per request; 0 = no limit, -1 = none
	topErr   int16
	logInfos []*GetReplicaLogInfoRequest
	lists    []*kmsg.ListOffsetsRequest
	// pos maps (topic id or name, partition) to LEO and epoch.
	byID   map[tpID][2]int64
	byName map[string]map[int32][2]int64
}

type fakeOpts struct {
	logInfo bool
	listMax int16 // ListOffsets max version; -1 = not served
	limit   int
	topErr  int16
}

func startFake(t *testing.T, o fakeOpts) *fakeBroker {
	t.Helper()
	f := &fakeBroker{limit: o.limit, topErr: o.topErr, byID: map[tpID][2]int64{}, byName: map[string]map[int32][2]int64{}}
	mux := wire.NewMux()
	if o.logInfo {
		err := mux.Register(wire.Route{VersionRange: wire.VersionRange{Key: GetReplicaLogInfoKey},
			Handler:  wire.HandlerFunc(f.serveLogInfo),
			Decoders: map[int16]wire.Decoder{0: {Flexible: true, Decode: DecodeRequest}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if o.listMax >= 0 {
		if err := mux.HandleFunc(wire.VersionRange{Key: 2, Min: 0, Max: o.listMax}, f.serveListOffsets); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := wire.New(wire.Config{Mux: mux})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	f.addr = ln.Addr().String()
	return f
}

func (f *fakeBroker) set(topic string, id [16]byte, p int32, leo int64, epoch int32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byID[tpID{id, p}] = [2]int64{leo, int64(epoch)}
	if f.byName[topic] == nil {
		f.byName[topic] = map[int32][2]int64{}
	}
	f.byName[topic][p] = [2]int64{leo, int64(epoch)}
}

func (f *fakeBroker) serveLogInfo(_ context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*GetReplicaLogInfoRequest)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logInfos = append(f.logInfos, r)
	resp := r.ResponseKind().(*GetReplicaLogInfoResponse)
	resp.ErrorCode, resp.BrokerEpoch = f.topErr, 77
	served := 0
	for _, t := range r.Topics {
		rt := GetReplicaLogInfoResponseTopic{TopicID: t.TopicID}
		for _, p := range t.Partitions {
			rp := GetReplicaLogInfoResponsePartition{Partition: p, LastWrittenLeaderEpoch: -1, LogEndOffset: -1}
			pos, ok := f.byID[tpID{t.TopicID, p}]
			switch {
			case f.limit != 0 && served >= max(f.limit, 0):
				rp.ErrorCode = RequestLimitReachedCode
			case !ok:
				rp.ErrorCode = kerr.UnknownTopicOrPartition.Code
			default:
				rp.LogEndOffset, rp.LastWrittenLeaderEpoch = pos[0], int32(pos[1])
			}
			served++
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

func (f *fakeBroker) serveListOffsets(_ context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.ListOffsetsRequest)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists = append(f.lists, r)
	resp := r.ResponseKind().(*kmsg.ListOffsetsResponse)
	for _, t := range r.Topics {
		rt := kmsg.NewListOffsetsResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewListOffsetsResponseTopicPartition()
			rp.Partition = p.Partition
			if pos, ok := f.byName[t.Topic][p.Partition]; ok {
				rp.Offset, rp.LeaderEpoch = pos[0], int32(pos[1])
			} else {
				rp.ErrorCode = kerr.NotLeaderForPartition.Code
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

var (
	idA = [16]byte{0xa}
	idB = [16]byte{0xb}
)

func TestProbeGetReplicaLogInfoSplitsAndRetries(t *testing.T) {
	f := startFake(t, fakeOpts{logInfo: true, listMax: 9, limit: 2})
	f.set("a", idA, 0, 10, 3)
	f.set("a", idA, 1, 11, 4)
	f.set("b", idB, 0, 20, 5)
	f.set("b", idB, 1, 21, 6)
	f.set("c", [16]byte{}, 0, 30, 7) // a topic without id: asked with ListOffsets
	parts := []Partition{
		{Topic: "a", TopicID: idA, Index: 0}, {Topic: "b", TopicID: idB, Index: 1},
		{Topic: "a", TopicID: idA, Index: 1}, {Topic: "b", TopicID: idB, Index: 0},
		{Topic: "a", TopicID: idA, Index: 0}, // repeated
		{Topic: "a", TopicID: idA, Index: 9}, // not hosted
		{Topic: "c", Index: 0},
	}
	p := New(Options{PartitionsPerRequest: 3})
	infos, err := p.Probe(context.Background(), Target{BrokerID: 1, Addr: f.addr}, parts)
	if err != nil {
		t.Fatal(err)
	}
	want := []Info{
		{Partition: parts[0], LogEndOffset: 10, LastEpoch: 3},
		{Partition: parts[1], LogEndOffset: 21, LastEpoch: 6},
		{Partition: parts[2], LogEndOffset: 11, LastEpoch: 4},
		{Partition: parts[3], LogEndOffset: 20, LastEpoch: 5},
		{Partition: parts[4], LogEndOffset: 10, LastEpoch: 3},
		{Partition: parts[5], LogEndOffset: -1, LastEpoch: -1, ErrorCode: kerr.UnknownTopicOrPartition.Code},
		{Partition: parts[6], LogEndOffset: 30, LastEpoch: -1}, // ListOffsets: no epoch
	}
	checkInfos(t, infos, want)
	f.mu.Lock()
	defer f.mu.Unlock()
	total := 0
	for _, r := range f.logInfos {
		n := 0
		for _, tp := range r.Topics {
			n += len(tp.Partitions)
		}
		if n > 3 || r.BrokerID != 1 {
			t.Fatalf("request for broker %d with %d partitions; want broker 1, at most 3", r.BrokerID, n)
		}
		total += n
	}
	// 5 distinct partitions with ids, 3 asked and 2 served per request:
	// the one limited in each of the first two requests is asked again,
	// never a served one.
	if len(f.logInfos) != 3 || total != 5+2 {
		t.Fatalf("%d requests for %d partitions, want 3 for 7", len(f.logInfos), total)
	}
	if len(f.lists) != 1 || f.lists[0].ReplicaID != -2 {
		t.Fatalf("ListOffsets for the id-less topic: %+v", f.lists)
	}
}

func TestProbeGivesUpOnLimit(t *testing.T) {
	f := startFake(t, fakeOpts{logInfo: true, listMax: -1, limit: -1})
	f.set("a", idA, 0, 10, 3)
	parts := []Partition{{Topic: "a", TopicID: idA, Index: 0}, {Topic: "a", TopicID: idA, Index: 1}}
	p := New(Options{LimitRetries: 2, RetryBackoff: time.Millisecond})
	infos, err := p.Probe(context.Background(), Target{BrokerID: 1, Addr: f.addr}, parts)
	if err != nil {
		t.Fatal(err)
	}
	checkInfos(t, infos, []Info{unanswered(parts[0], RequestLimitReachedCode), unanswered(parts[1], RequestLimitReachedCode)})
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.logInfos) != 3 {
		t.Fatalf("%d requests, want LimitRetries+1 = 3", len(f.logInfos))
	}
}

func checkInfos(t *testing.T, got, want []Info) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d infos, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("info %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestProbeNotSupported(t *testing.T) {
	f := startFake(t, fakeOpts{listMax: -1})
	_, err := New(Options{}).Probe(context.Background(), Target{BrokerID: 1, Addr: f.addr}, []Partition{{Topic: "a", Index: 0}})
	if !errors.Is(err, ErrNotSupported) {
		t.Fatalf("error %v, want ErrNotSupported", err)
	}
}

func TestProbeListOffsets(t *testing.T) {
	for _, tc := range []struct {
		name        string
		max         int16
		wantVersion int16
		wantEpoch   int32
	}{
		// The epoch a broker answers is its current leader epoch, not
		// its last record's: never reported (list_offsets.go).
		{"kafka 3.9", 9, 9, -1},
		{"newest kmsg", kmsg.NewPtrListOffsetsRequest().MaxVersion(), kmsg.NewPtrListOffsetsRequest().MaxVersion(), -1},
		{"no epoch before v4", 3, 3, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startFake(t, fakeOpts{listMax: tc.max})
			f.set("a", idA, 0, 10, 5)
			f.set("b", idB, 2, 20, 5)
			parts := []Partition{{Topic: "a", TopicID: idA, Index: 0}, {Topic: "b", Index: 2}, {Topic: "a", Index: 1}, {TopicID: idB, Index: 2}}
			infos, err := New(Options{}).Probe(context.Background(), Target{BrokerID: 3, Addr: f.addr}, parts)
			if err != nil {
				t.Fatal(err)
			}
			checkInfos(t, infos, []Info{
				{Partition: parts[0], LogEndOffset: 10, LastEpoch: tc.wantEpoch},
				{Partition: parts[1], LogEndOffset: 20, LastEpoch: tc.wantEpoch},
				unanswered(parts[2], kerr.NotLeaderForPartition.Code),
				unanswered(parts[3], kerr.UnknownTopicOrPartition.Code), // no name to ask with
			})
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.lists) != 1 {
				t.Fatalf("%d ListOffsets requests, want 1", len(f.lists))
			}
			r := f.lists[0]
			if r.Version != tc.wantVersion || r.ReplicaID != -2 || r.IsolationLevel != 0 || len(r.Topics) != 2 {
				t.Fatalf("request v%d replica %d isolation %d topics %d", r.Version, r.ReplicaID, r.IsolationLevel, len(r.Topics))
			}
			for _, rt := range r.Topics {
				for _, rp := range rt.Partitions {
					if rp.Timestamp != -1 || rp.CurrentLeaderEpoch != -1 {
						t.Fatalf("partition %s-%d asks timestamp %d epoch %d", rt.Topic, rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch)
					}
				}
			}
		})
	}
}

func TestProbeWholeRequestError(t *testing.T) {
	f := startFake(t, fakeOpts{logInfo: true, listMax: -1, topErr: kerr.InvalidRequest.Code})
	f.set("a", idA, 0, 10, 3)
	parts := []Partition{{Topic: "a", TopicID: idA, Index: 0}}
	infos, err := New(Options{}).Probe(context.Background(), Target{BrokerID: 1, Addr: f.addr}, parts)
	if err != nil {
		t.Fatal(err)
	}
	checkInfos(t, infos, []Info{unanswered(parts[0], kerr.InvalidRequest.Code)})
}

func TestProbeDialHookAndEmpty(t *testing.T) {
	f := startFake(t, fakeOpts{listMax: 9})
	f.set("a", idA, 0, 10, 3)
	var dialed []string
	p := New(Options{Dial: func(ctx context.Context, addr string) (net.Conn, error) {
		dialed = append(dialed, addr)
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}})
	infos, err := p.Probe(context.Background(), Target{BrokerID: 1, Addr: f.addr}, nil)
	if err != nil || len(infos) != 0 || len(dialed) != 0 {
		t.Fatalf("empty probe: %v %v, dialed %v", infos, err, dialed)
	}
	if _, err := p.Probe(context.Background(), Target{BrokerID: 1, Addr: f.addr}, []Partition{{Topic: "a", Index: 0}}); err != nil {
		t.Fatal(err)
	}
	if len(dialed) != 1 || dialed[0] != f.addr {
		t.Fatalf("dialed %v", dialed)
	}
}

// TestProbeUnreachableAndCancelled: a broker that cannot be dialed, and
// one that never answers, are errors; the second ends with ctx.
func TestProbeUnreachableAndCancelled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	t.Cleanup(func() { ln.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := New(Options{}).Probe(ctx, Target{BrokerID: 1, Addr: addr}, []Partition{{Topic: "a"}})
		done <- err
	}()
	c := <-accepted // connected; the silent peer never answers ApiVersions
	defer c.Close()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	ln.Close()
	if _, err := New(Options{RequestTimeout: 2 * time.Second}).Probe(context.Background(), Target{BrokerID: 1, Addr: addr},
		[]Partition{{Topic: "a"}}); err == nil {
		t.Fatal("probe of a closed port succeeded")
	}
}
