package replicalog

import (
	"bytes"
	"reflect"
	"testing"
)

func sampleRequest() *GetReplicaLogInfoRequest {
	return &GetReplicaLogInfoRequest{BrokerID: 7, Topics: []GetReplicaLogInfoRequestTopic{
		{TopicID: [16]byte{1}, Partitions: []int32{0, 2}},
		{TopicID: [16]byte{15: 9}, Partitions: []int32{}},
	}}
}

func sampleResponse() *GetReplicaLogInfoResponse {
	return &GetReplicaLogInfoResponse{ThrottleMillis: 3, BrokerEpoch: 42, Topics: []GetReplicaLogInfoResponseTopic{
		{TopicID: [16]byte{1}, Partitions: []GetReplicaLogInfoResponsePartition{
			{Partition: 0, LastWrittenLeaderEpoch: 4, LogEndOffset: 1 << 40},
			{Partition: 2, LastWrittenLeaderEpoch: -1, LogEndOffset: -1, ErrorCode: RequestLimitReachedCode},
		}},
	}}
}

// TestRequestLayout pins the wire bytes of a small request, field by field.
func TestRequestLayout(t *testing.T) {
	r := &GetReplicaLogInfoRequest{BrokerID: 1, Topics: []GetReplicaLogInfoRequestTopic{
		{TopicID: [16]byte{0xaa}, Partitions: []int32{5}},
	}}
	want := []byte{0, 0, 0, 1} // BrokerId
	want = append(want, 2)     // one topic (compact: n+1)
	want = append(want, 0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 2, 0, 0, 0, 5) // one partition, 5
	want = append(want, 0, 0)          // topic tags, request tags
	if got := r.AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatalf("encoded\n%v\nwant\n%v", got, want)
	}
	null := (&GetReplicaLogInfoRequest{BrokerID: 1}).AppendTo(nil)
	if !bytes.Equal(null, []byte{0, 0, 0, 1, 0, 0}) {
		t.Fatalf("null topics encode as %v", null)
	}
}

func TestResponseLayout(t *testing.T) {
	r := &GetReplicaLogInfoResponse{ErrorCode: 42, BrokerEpoch: 2, Topics: []GetReplicaLogInfoResponseTopic{
		{TopicID: [16]byte{}, Partitions: []GetReplicaLogInfoResponsePartition{{Partition: 1, LastWrittenLeaderEpoch: 3, LogEndOffset: 4, ErrorCode: 5}}},
	}}
	want := []byte{0, 0, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0, 2, 2}
	want = append(want, make([]byte, 16)...)
	want = append(want, 2, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 5, 0, 0, 0)
	if got := r.AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatalf("encoded\n%v\nwant\n%v", got, want)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	for _, req := range []*GetReplicaLogInfoRequest{sampleRequest(), {BrokerID: -1}, {Topics: []GetReplicaLogInfoRequestTopic{}}} {
		got, err := DecodeRequest(req.AppendTo(nil))
		if err != nil {
			t.Fatalf("decode %+v: %v", req, err)
		}
		if !reflect.DeepEqual(got, req) {
			t.Fatalf("round trip\n%+v\nwant\n%+v", got, req)
		}
	}
	for _, resp := range []*GetReplicaLogInfoResponse{sampleResponse(), {BrokerEpoch: -1}} {
		got := &GetReplicaLogInfoResponse{}
		if err := got.ReadFrom(resp.AppendTo(nil)); err != nil {
			t.Fatalf("decode %+v: %v", resp, err)
		}
		if !reflect.DeepEqual(got, resp) {
			t.Fatalf("round trip\n%+v\nwant\n%+v", got, resp)
		}
	}
}

func TestCodecSkipsTags(t *testing.T) {
	// BrokerId, null topics, then one unknown tag (tag 3, 2 bytes).
	body := []byte{0, 0, 0, 4, 0, 1, 3, 2, 0xff, 0xff}
	got, err := DecodeRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if r := got.(*GetReplicaLogInfoRequest); r.BrokerID != 4 || r.Topics != nil {
		t.Fatalf("decoded %+v", r)
	}
}

func TestCodecRejectsTruncated(t *testing.T) {
	reqBytes := sampleRequest().AppendTo(nil)
	for n := range len(reqBytes) {
		if _, err := DecodeRequest(reqBytes[:n]); err == nil {
			t.Fatalf("request cut at %d of %d bytes decoded", n, len(reqBytes))
		}
	}
	respBytes := sampleResponse().AppendTo(nil)
	for n := range len(respBytes) {
		if err := new(GetReplicaLogInfoResponse).ReadFrom(respBytes[:n]); err == nil {
			t.Fatalf("response cut at %d of %d bytes decoded", n, len(respBytes))
		}
	}
}

func TestCodecKinds(t *testing.T) {
	req := &GetReplicaLogInfoRequest{}
	resp := req.ResponseKind().(*GetReplicaLogInfoResponse)
	if resp.BrokerEpoch != -1 || resp.Key() != GetReplicaLogInfoKey || !resp.IsFlexible() || resp.GetVersion() != 0 {
		t.Fatalf("response kind %+v", resp)
	}
	if _, ok := resp.RequestKind().(*GetReplicaLogInfoRequest); !ok || req.Key() != GetReplicaLogInfoKey || req.MaxVersion() != 0 {
		t.Fatal("request kind")
	}
}
