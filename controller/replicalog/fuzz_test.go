package replicalog

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzRequestCodec: any body either fails to decode or decodes to a value
// whose encoding decodes to the same value and encodes to the same bytes.
func FuzzRequestCodec(f *testing.F) {
	f.Add(sampleRequest().AppendTo(nil))
	f.Add((&GetReplicaLogInfoRequest{BrokerID: -1}).AppendTo(nil))
	f.Add([]byte{0, 0, 0, 4, 0, 1, 3, 2, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, body []byte) {
		r1 := &GetReplicaLogInfoRequest{}
		if r1.ReadFrom(body) != nil {
			return
		}
		enc := r1.AppendTo(nil)
		r2 := &GetReplicaLogInfoRequest{}
		if err := r2.ReadFrom(enc); err != nil {
			t.Fatalf("re-encoding of %x does not decode: %v", body, err)
		}
		if !reflect.DeepEqual(r1, r2) {
			t.Fatalf("round trip changed\n%+v\n%+v", r1, r2)
		}
		if !bytes.Equal(enc, r2.AppendTo(nil)) {
			t.Fatal("encoding is not stable")
		}
	})
}

// FuzzResponseCodec is FuzzRequestCodec for the response.
func FuzzResponseCodec(f *testing.F) {
	f.Add(sampleResponse().AppendTo(nil))
	f.Add((&GetReplicaLogInfoResponse{BrokerEpoch: -1}).AppendTo(nil))
	f.Fuzz(func(t *testing.T, body []byte) {
		r1 := &GetReplicaLogInfoResponse{}
		if r1.ReadFrom(body) != nil {
			return
		}
		enc := r1.AppendTo(nil)
		r2 := &GetReplicaLogInfoResponse{}
		if err := r2.ReadFrom(enc); err != nil {
			t.Fatalf("re-encoding of %x does not decode: %v", body, err)
		}
		if !reflect.DeepEqual(r1, r2) {
			t.Fatalf("round trip changed\n%+v\n%+v", r1, r2)
		}
		if !bytes.Equal(enc, r2.AppendTo(nil)) {
			t.Fatal("encoding is not stable")
		}
	})
}

// FuzzEncodeDecode builds a request and a response from fuzzed fields and
// checks they survive the round trip.
func FuzzEncodeDecode(f *testing.F) {
	f.Add(int32(1), []byte{1, 2, 3}, int64(5), int16(0), uint8(3))
	f.Fuzz(func(t *testing.T, broker int32, id []byte, leo int64, code int16, n uint8) {
		var tid [16]byte
		copy(tid[:], id)
		req := &GetReplicaLogInfoRequest{BrokerID: broker, Topics: []GetReplicaLogInfoRequestTopic{{TopicID: tid, Partitions: []int32{}}}}
		resp := &GetReplicaLogInfoResponse{BrokerEpoch: leo, ErrorCode: code, Topics: []GetReplicaLogInfoResponseTopic{{TopicID: tid}}}
		for i := range int32(n) {
			req.Topics[0].Partitions = append(req.Topics[0].Partitions, i*broker)
			resp.Topics[0].Partitions = append(resp.Topics[0].Partitions,
				GetReplicaLogInfoResponsePartition{Partition: i, LastWrittenLeaderEpoch: broker - i, LogEndOffset: leo + int64(i), ErrorCode: code})
		}
		gotReq := &GetReplicaLogInfoRequest{}
		if err := gotReq.ReadFrom(req.AppendTo(nil)); err != nil || !reflect.DeepEqual(gotReq, req) {
			t.Fatalf("request round trip: %v\n%+v\n%+v", err, gotReq, req)
		}
		gotResp := &GetReplicaLogInfoResponse{}
		if n == 0 {
			resp.Topics[0].Partitions = nil // an empty array decodes as nil
		}
		if err := gotResp.ReadFrom(resp.AppendTo(nil)); err != nil || !reflect.DeepEqual(gotResp, resp) {
			t.Fatalf("response round trip: %v\n%+v\n%+v", err, gotResp, resp)
		}
	})
}
