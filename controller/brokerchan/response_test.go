package brokerchan

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

func names(ids map[znodes.UUID]string) func(znodes.UUID) (string, bool) {
	return func(id znodes.UUID) (string, bool) { n, ok := ids[id]; return n, ok }
}

func laiResponseV5(topLevel int16, topics map[znodes.UUID]map[int32]int16) *kmsg.LeaderAndISRResponse {
	resp := kmsg.NewPtrLeaderAndISRResponse()
	resp.Version = 5
	resp.ErrorCode = topLevel
	for _, id := range slices.SortedFunc(maps.Keys(topics), func(a, b znodes.UUID) int { return slices.Compare(a[:], b[:]) }) {
		t := kmsg.NewLeaderAndISRResponseTopic()
		t.TopicID = id
		for p, code := range topics[id] {
			t.Partitions = append(t.Partitions, kmsg.LeaderAndISRResponseTopicPartition{Partition: p, ErrorCode: code})
		}
		resp.Topics = append(resp.Topics, t)
	}
	return resp
}

func TestParseLeaderAndIsrResponseByID(t *testing.T) {
	barID, ghostID := znodes.UUID{2}, znodes.UUID{9}
	resp := laiResponseV5(0, map[znodes.UUID]map[int32]int16{
		fooID:   {0: 0, 1: kerr.KafkaStorageError.Code, 2: kerr.StaleControllerEpoch.Code},
		barID:   {0: kerr.KafkaStorageError.Code, 3: 0},
		ghostID: {0: 0},
	})
	r := ParseLeaderAndIsrResponse(4, resp, names(map[znodes.UUID]string{fooID: "foo", barID: "bar"}))
	if r.Broker != 4 || r.Err != nil {
		t.Fatalf("broker %d err %v", r.Broker, r.Err)
	}
	if want := []election.TopicPartition{tp("bar", 3), tp("foo", 0)}; !slices.Equal(r.Online, want) {
		t.Errorf("Online %v, want %v", r.Online, want)
	}
	if want := []election.TopicPartition{tp("bar", 0), tp("foo", 1)}; !slices.Equal(r.Offline, want) {
		t.Errorf("Offline %v, want %v", r.Offline, want)
	}
	if len(r.Failed) != 1 || !errors.Is(r.Failed[tp("foo", 2)], kerr.StaleControllerEpoch) {
		t.Errorf("Failed %v, want foo-2 STALE_CONTROLLER_EPOCH", r.Failed)
	}
	if !slices.Equal(r.UnknownTopicIDs, []znodes.UUID{ghostID}) {
		t.Errorf("UnknownTopicIDs %v", r.UnknownTopicIDs)
	}
}

func TestParseLeaderAndIsrResponseByName(t *testing.T) {
	resp := kmsg.NewPtrLeaderAndISRResponse()
	resp.Version = 4
	resp.Partitions = []kmsg.LeaderAndISRResponseTopicPartition{
		{Topic: "foo", Partition: 1, ErrorCode: 0},
		{Topic: "foo", Partition: 0, ErrorCode: kerr.KafkaStorageError.Code},
	}
	r := ParseLeaderAndIsrResponse(1, resp, nil)
	if !slices.Equal(r.Online, []election.TopicPartition{tp("foo", 1)}) ||
		!slices.Equal(r.Offline, []election.TopicPartition{tp("foo", 0)}) || r.Failed != nil {
		t.Errorf("result %+v", r)
	}
}

func TestParseLeaderAndIsrResponseTopLevelError(t *testing.T) {
	resp := laiResponseV5(kerr.StaleBrokerEpoch.Code, map[znodes.UUID]map[int32]int16{
		fooID: {0: kerr.StaleBrokerEpoch.Code},
	})
	r := ParseLeaderAndIsrResponse(1, resp, names(map[znodes.UUID]string{fooID: "foo"}))
	if !errors.Is(r.Err, kerr.StaleBrokerEpoch) || r.Online != nil || r.Offline != nil || r.Failed != nil {
		t.Errorf("result %+v, want only the top-level STALE_BROKER_EPOCH", r)
	}
}

// TestAllNone checks the fast path's predicate, and that whenever it holds
// the full parse, applied to a broker with nothing offline, changes
// nothing: skipping it is then exact.
func TestAllNone(t *testing.T) {
	barID, ghostID := znodes.UUID{2}, znodes.UUID{9}
	byName := func(codes ...int16) *kmsg.LeaderAndISRResponse {
		resp := kmsg.NewPtrLeaderAndISRResponse()
		resp.Version = 4
		for i, c := range codes {
			resp.Partitions = append(resp.Partitions, kmsg.LeaderAndISRResponseTopicPartition{Topic: "foo", Partition: int32(i), ErrorCode: c})
		}
		return resp
	}
	cases := []struct {
		name string
		resp *kmsg.LeaderAndISRResponse
		want bool
	}{
		{"empty", kmsg.NewPtrLeaderAndISRResponse(), true},
		{"v4 all NONE", byName(0, 0, 0), true},
		{"v4 one storage error", byName(0, kerr.KafkaStorageError.Code, 0), false},
		{"v4 one stale epoch", byName(kerr.StaleControllerEpoch.Code), false},
		{"v5 all NONE", laiResponseV5(0, map[znodes.UUID]map[int32]int16{fooID: {0: 0, 1: 0}, barID: {0: 0}}), true},
		{"v5 unknown topic id, all NONE", laiResponseV5(0, map[znodes.UUID]map[int32]int16{ghostID: {0: 0}}), true},
		{"v5 one storage error", laiResponseV5(0, map[znodes.UUID]map[int32]int16{fooID: {0: 0}, barID: {3: kerr.KafkaStorageError.Code}}), false},
		{"v5 top-level error", laiResponseV5(kerr.StaleBrokerEpoch.Code, map[znodes.UUID]map[int32]int16{fooID: {0: 0}}), false},
	}
	resolve := names(map[znodes.UUID]string{fooID: "foo", barID: "bar"})
	for _, c := range cases {
		if got := AllNone(c.resp); got != c.want {
			t.Errorf("%s: AllNone = %v, want %v", c.name, got, c.want)
		}
		if !c.want {
			continue
		}
		r := ParseLeaderAndIsrResponse(2, c.resp, resolve)
		current, newly := UpdateOfflineReplicas(nil, r)
		if r.Err != nil || r.Offline != nil || r.Failed != nil || len(current) != 0 || newly != nil {
			t.Errorf("%s: the parse skipped would have changed something: %+v, offline now %v, newly %v", c.name, r, current, newly)
		}
	}
}

func tpSet(tps ...election.TopicPartition) map[election.TopicPartition]bool {
	m := map[election.TopicPartition]bool{}
	for _, x := range tps {
		m[x] = true
	}
	return m
}

func TestUpdateOfflineReplicas(t *testing.T) {
	a, b, c, d := tp("t", 0), tp("t", 1), tp("t", 2), tp("t", 3)
	previous := tpSet(a, b, d)
	r := LeaderAndIsrResult{Online: []election.TopicPartition{a}, Offline: []election.TopicPartition{b, c}}
	current, newly := UpdateOfflineReplicas(previous, r)
	if !maps.Equal(current, tpSet(b, c, d)) {
		t.Errorf("current %v, want {t-1 t-2 t-3}", current)
	}
	if !slices.Equal(newly, []election.TopicPartition{c}) {
		t.Errorf("newly offline %v, want [t-2]", newly)
	}
	if !maps.Equal(previous, tpSet(a, b, d)) {
		t.Error("previous was modified")
	}
	if cur, newly := UpdateOfflineReplicas(nil, LeaderAndIsrResult{}); len(cur) != 0 || newly != nil {
		t.Errorf("empty: %v %v", cur, newly)
	}
}

func stopRequestV3(parts map[election.TopicPartition]bool) *kmsg.StopReplicaRequest {
	req := kmsg.NewPtrStopReplicaRequest()
	req.Version = 3
	for _, x := range slices.SortedFunc(maps.Keys(parts), comparePartitions) {
		t := kmsg.NewStopReplicaRequestTopic()
		t.Topic = x.Topic
		ps := kmsg.NewStopReplicaRequestTopicPartitionState()
		ps.Partition, ps.Delete = x.Partition, parts[x]
		t.PartitionStates = append(t.PartitionStates, ps)
		req.Topics = append(req.Topics, t)
	}
	return req
}

func stopResponse(topLevel int16, codes map[election.TopicPartition]int16) *kmsg.StopReplicaResponse {
	resp := kmsg.NewPtrStopReplicaResponse()
	resp.ErrorCode = topLevel
	for _, x := range slices.SortedFunc(maps.Keys(codes), comparePartitions) {
		resp.Partitions = append(resp.Partitions, kmsg.StopReplicaResponsePartition{Topic: x.Topic, Partition: x.Partition, ErrorCode: codes[x]})
	}
	return resp
}

func TestParseStopReplicaResponse(t *testing.T) {
	started := func(topic string) bool { return topic == "gone" }
	req := stopRequestV3(map[election.TopicPartition]bool{
		tp("gone", 0): true, tp("gone", 1): true, tp("gone", 2): false, tp("moved", 0): true,
	})
	resp := stopResponse(0, map[election.TopicPartition]int16{
		tp("gone", 0): 0, tp("gone", 1): kerr.KafkaStorageError.Code, tp("gone", 2): 0, tp("moved", 0): 0,
	})
	r := ParseStopReplicaResponse(2, req, resp, started)
	// gone-2 was sent without delete and moved-0's topic is not being
	// deleted: neither counts.
	if !r.Relevant() || !slices.Equal(r.Deleted, []election.TopicPartition{tp("gone", 0)}) {
		t.Errorf("Deleted %v, want [gone-0]", r.Deleted)
	}
	if len(r.Failed) != 1 || !errors.Is(r.Failed[tp("gone", 1)], kerr.KafkaStorageError) {
		t.Errorf("Failed %v, want gone-1 KAFKA_STORAGE_ERROR", r.Failed)
	}

	// A top-level error fails every counted partition.
	resp = stopResponse(kerr.StaleControllerEpoch.Code, map[election.TopicPartition]int16{tp("gone", 0): 0})
	r = ParseStopReplicaResponse(2, req, resp, started)
	if !errors.Is(r.Err, kerr.StaleControllerEpoch) || r.Deleted != nil ||
		!errors.Is(r.Failed[tp("gone", 0)], kerr.StaleControllerEpoch) {
		t.Errorf("top-level error: %+v", r)
	}
	// The broker answers a stale request with no partitions: nothing counts.
	r = ParseStopReplicaResponse(2, req, stopResponse(kerr.StaleBrokerEpoch.Code, nil), started)
	if r.Relevant() {
		t.Errorf("empty stale response counted: %+v", r)
	}
}

func TestParseStopReplicaResponseOldVersions(t *testing.T) {
	started := func(string) bool { return true }
	resp := stopResponse(0, map[election.TopicPartition]int16{tp("t", 0): 0})
	for _, c := range []struct {
		version int16
		delete  bool
		want    bool
	}{{1, true, true}, {1, false, false}, {0, true, true}, {2, false, false}} {
		req := kmsg.NewPtrStopReplicaRequest()
		req.Version, req.DeletePartitions = c.version, c.delete
		r := ParseStopReplicaResponse(1, req, resp, started)
		if r.Relevant() != c.want {
			t.Errorf("v%d delete=%v: relevant %v, want %v", c.version, c.delete, r.Relevant(), c.want)
		}
	}
}

func TestUpdateMetadataError(t *testing.T) {
	resp := kmsg.NewPtrUpdateMetadataResponse()
	if err := UpdateMetadataError(resp); err != nil {
		t.Errorf("NONE: %v", err)
	}
	resp.ErrorCode = kerr.StaleControllerEpoch.Code
	if err := UpdateMetadataError(resp); !errors.Is(err, kerr.StaleControllerEpoch) {
		t.Errorf("err %v", err)
	}
}
