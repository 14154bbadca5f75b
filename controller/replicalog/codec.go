package replicalog

// GetReplicaLogInfo v0, kzadmin's codec for seed 003's API. kmsg does not
// know the key, so the request and response are our own types implementing
// kmsg.Request and kmsg.Response; controller/wire serves them through a
// wire.Decoder and kmsg.RequestFormatter frames them.
//
// The version is flexible (compact strings and arrays, tagged fields), as
// the seed's "flexibleVersions": "0+" says. The request is the seed's:
//
//	BrokerId int32                         the broker asked
//	TopicPartitions compact nullable array of
//	    TopicId uuid
//	    Partitions compact array of int32
//	    tagged fields
//	tagged fields
//
// A null TopicPartitions asks for every partition the broker hosts.
//
// The seed gives no response; this one answers, per partition, what the
// unclean recovery manager compares (the epoch of the last record first,
// then the log end offset), with an error code per partition as every
// Kafka API has:
//
//	ThrottleTimeMs int32
//	ErrorCode int16                        whole request (BrokerId not ours)
//	BrokerEpoch int64                      the answering broker's epoch, -1 unknown
//	TopicPartitions compact array of
//	    TopicId uuid
//	    Partitions compact array of
//	        Partition int32
//	        LastWrittenLeaderEpoch int32   epoch of the last record, -1 if none
//	        LogEndOffset int64             -1 when ErrorCode is not 0
//	        ErrorCode int16
//	        tagged fields
//	    tagged fields
//	tagged fields
//
// A server serves at most MaxPartitionsPerRequest partitions of one
// request; the ones past the limit are answered RequestLimitReachedCode.

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// RequestLimitReachedCode is the code a GetReplicaLogInfo server answers
// for the partitions past MaxPartitionsPerRequest. Kafka defines no
// REQUEST_LIMIT_REACHED code; the seed calls it "InvalidRequestError
// REQUEST_LIMIT_REACHED", so this is INVALID_REQUEST (42), as kzadmin's
// CLI reads the seed's per-request limits elsewhere. A partition answered
// with it was not looked at and may be asked for again.
const RequestLimitReachedCode int16 = 42

// getReplicaLogInfoVersion is the one version the codec speaks.
const getReplicaLogInfoVersion int16 = 0

// maxPrealloc caps what a decoder allocates up front for an array, so a
// lying length costs no more memory than the bytes that carry it.
const maxPrealloc = 1024

// errMalformed reports a body that does not decode.
var errMalformed = errors.New("GetReplicaLogInfo v0: malformed body")

// GetReplicaLogInfoRequest is the request (see the file comment).
type GetReplicaLogInfoRequest struct {
	BrokerID int32
	// Topics nil (null on the wire) means every hosted partition.
	Topics []GetReplicaLogInfoRequestTopic
}

// GetReplicaLogInfoRequestTopic is one topic's partitions to report.
type GetReplicaLogInfoRequestTopic struct {
	TopicID    [16]byte
	Partitions []int32
}

// GetReplicaLogInfoResponse is the response (see the file comment).
type GetReplicaLogInfoResponse struct {
	ThrottleMillis int32
	ErrorCode      int16
	BrokerEpoch    int64
	Topics         []GetReplicaLogInfoResponseTopic
}

// GetReplicaLogInfoResponseTopic is one topic's answers.
type GetReplicaLogInfoResponseTopic struct {
	TopicID    [16]byte
	Partitions []GetReplicaLogInfoResponsePartition
}

// GetReplicaLogInfoResponsePartition is one replica's log position.
type GetReplicaLogInfoResponsePartition struct {
	Partition              int32
	LastWrittenLeaderEpoch int32
	LogEndOffset           int64
	ErrorCode              int16
}

// Key is GetReplicaLogInfoKey.
func (*GetReplicaLogInfoRequest) Key() int16 { return GetReplicaLogInfoKey }

// MaxVersion is 0.
func (*GetReplicaLogInfoRequest) MaxVersion() int16 { return getReplicaLogInfoVersion }

// SetVersion does nothing: the type is version 0 only.
func (*GetReplicaLogInfoRequest) SetVersion(int16) {}

// GetVersion is 0.
func (*GetReplicaLogInfoRequest) GetVersion() int16 { return getReplicaLogInfoVersion }

// IsFlexible is true.
func (*GetReplicaLogInfoRequest) IsFlexible() bool { return true }

// ResponseKind returns an empty response with an unknown broker epoch.
func (*GetReplicaLogInfoRequest) ResponseKind() kmsg.Response {
	return &GetReplicaLogInfoResponse{BrokerEpoch: -1}
}

// AppendTo encodes the request body.
func (r *GetReplicaLogInfoRequest) AppendTo(dst []byte) []byte {
	dst = kbin.AppendInt32(dst, r.BrokerID)
	dst = kbin.AppendCompactNullableArrayLen(dst, len(r.Topics), r.Topics == nil)
	for _, t := range r.Topics {
		dst = kbin.AppendUuid(dst, t.TopicID)
		dst = kbin.AppendCompactArrayLen(dst, len(t.Partitions))
		for _, p := range t.Partitions {
			dst = kbin.AppendInt32(dst, p)
		}
		dst = kbin.AppendUvarint(dst, 0) // no tagged fields
	}
	return kbin.AppendUvarint(dst, 0)
}

// ReadFrom decodes a request body; tagged fields are skipped.
func (r *GetReplicaLogInfoRequest) ReadFrom(src []byte) error {
	b := kbin.Reader{Src: src}
	*r = GetReplicaLogInfoRequest{BrokerID: b.Int32()}
	n, ok := arrayLen(&b)
	if ok && n >= 0 {
		r.Topics = make([]GetReplicaLogInfoRequestTopic, 0, min(n, maxPrealloc))
		for i := int32(0); i < n && b.Ok(); i++ {
			t := GetReplicaLogInfoRequestTopic{TopicID: b.Uuid()}
			t.Partitions = readInt32s(&b)
			skipTags(&b)
			r.Topics = append(r.Topics, t)
		}
	}
	skipTags(&b)
	if !ok || b.Complete() != nil {
		return errMalformed
	}
	return nil
}

// Key is GetReplicaLogInfoKey.
func (*GetReplicaLogInfoResponse) Key() int16 { return GetReplicaLogInfoKey }

// MaxVersion is 0.
func (*GetReplicaLogInfoResponse) MaxVersion() int16 { return getReplicaLogInfoVersion }

// SetVersion does nothing: the type is version 0 only.
func (*GetReplicaLogInfoResponse) SetVersion(int16) {}

// GetVersion is 0.
func (*GetReplicaLogInfoResponse) GetVersion() int16 { return getReplicaLogInfoVersion }

// IsFlexible is true.
func (*GetReplicaLogInfoResponse) IsFlexible() bool { return true }

// RequestKind returns an empty request.
func (*GetReplicaLogInfoResponse) RequestKind() kmsg.Request { return &GetReplicaLogInfoRequest{} }

// AppendTo encodes the response body.
func (r *GetReplicaLogInfoResponse) AppendTo(dst []byte) []byte {
	dst = kbin.AppendInt32(dst, r.ThrottleMillis)
	dst = kbin.AppendInt16(dst, r.ErrorCode)
	dst = kbin.AppendInt64(dst, r.BrokerEpoch)
	dst = kbin.AppendCompactArrayLen(dst, len(r.Topics))
	for _, t := range r.Topics {
		dst = kbin.AppendUuid(dst, t.TopicID)
		dst = kbin.AppendCompactArrayLen(dst, len(t.Partitions))
		for _, p := range t.Partitions {
			dst = kbin.AppendInt32(dst, p.Partition)
			dst = kbin.AppendInt32(dst, p.LastWrittenLeaderEpoch)
			dst = kbin.AppendInt64(dst, p.LogEndOffset)
			dst = kbin.AppendInt16(dst, p.ErrorCode)
			dst = kbin.AppendUvarint(dst, 0)
		}
		dst = kbin.AppendUvarint(dst, 0)
	}
	return kbin.AppendUvarint(dst, 0)
}

// ReadFrom decodes a response body; tagged fields are skipped. A null
// topic array, which a server should not send, decodes as empty.
func (r *GetReplicaLogInfoResponse) ReadFrom(src []byte) error {
	b := kbin.Reader{Src: src}
	*r = GetReplicaLogInfoResponse{ThrottleMillis: b.Int32(), ErrorCode: b.Int16(), BrokerEpoch: b.Int64()}
	n, ok := arrayLen(&b)
	for i := int32(0); ok && i < n && b.Ok(); i++ {
		t := GetReplicaLogInfoResponseTopic{TopicID: b.Uuid()}
		var m int32
		if m, ok = arrayLen(&b); ok && m > 0 {
			t.Partitions = make([]GetReplicaLogInfoResponsePartition, 0, min(m, maxPrealloc))
		}
		for j := int32(0); ok && j < m && b.Ok(); j++ {
			p := GetReplicaLogInfoResponsePartition{Partition: b.Int32(), LastWrittenLeaderEpoch: b.Int32(),
				LogEndOffset: b.Int64(), ErrorCode: b.Int16()}
			skipTags(&b)
			t.Partitions = append(t.Partitions, p)
		}
		skipTags(&b)
		r.Topics = append(r.Topics, t)
	}
	skipTags(&b)
	if !ok || b.Complete() != nil {
		return errMalformed
	}
	return nil
}

// arrayLen reads a compact array length: -1 for null, else the count.
// ok is false for a length no encoder writes (below -1).
func arrayLen(b *kbin.Reader) (int32, bool) {
	n := b.CompactArrayLen()
	return n, n >= -1
}

// readInt32s reads a compact int32 array; null reads as empty.
func readInt32s(b *kbin.Reader) []int32 {
	n := b.CompactArrayLen()
	out := make([]int32, 0, min(max(n, 0), maxPrealloc))
	for i := int32(0); i < n && b.Ok(); i++ {
		out = append(out, b.Int32())
	}
	return out
}

// skipTags skips a tagged-field section: kzadmin defines no tags for this
// version, so any present belong to a newer writer.
func skipTags(b *kbin.Reader) {
	n := b.Uvarint()
	for i := uint32(0); i < n && b.Ok(); i++ {
		b.Uvarint() // tag
		b.Span(int(b.Uvarint()))
	}
}

// DecodeRequest decodes a GetReplicaLogInfo v0 request body. It has the
// shape of wire.Decoder's Decode, so a server registers the key with
// wire.Decoder{Flexible: true, Decode: replicalog.DecodeRequest}.
func DecodeRequest(body []byte) (kmsg.Request, error) {
	r := &GetReplicaLogInfoRequest{}
	if err := r.ReadFrom(body); err != nil {
		return nil, err
	}
	return r, nil
}
