package handler

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// ElectLeadersV3Request is ElectLeaders v3 (seed 003): v2 plus, per topic,
// DesiredLeaders, a nullable array whose i-th entry is the leader wanted
// for the i-th listed partition. kmsg stops at v2, so this version's codec
// is ours; it implements kmsg.Request at version 3 only. The response is
// laid out as v2's, so it is a *kmsg.ElectLeadersResponse at version 3.
//
// Wire layout (flexible: compact strings and arrays, tagged fields):
//
//	ElectionType int8
//	TopicPartitions compact nullable array of
//	    Topic compact string
//	    Partitions compact array of int32
//	    DesiredLeaders compact nullable array of int32
//	    tagged fields
//	TimeoutMs int32
//	tagged fields
type ElectLeadersV3Request struct {
	ElectionType int8
	// Topics nil means every partition.
	Topics        []ElectLeadersV3Topic
	TimeoutMillis int32
}

// ElectLeadersV3Topic is one topic's partitions and desired leaders.
type ElectLeadersV3Topic struct {
	Topic      string
	Partitions []int32
	// DesiredLeaders nil means none desired (a plain election).
	DesiredLeaders []int32
}

// electLeadersV3 is the version this codec speaks.
const electLeadersV3 int16 = 3

// NewElectLeadersV3Request returns a request with Kafka's default timeout.
func NewElectLeadersV3Request() *ElectLeadersV3Request {
	return &ElectLeadersV3Request{TimeoutMillis: 60000}
}

// Key is ElectLeaders' key.
func (*ElectLeadersV3Request) Key() int16 { return 43 }

// MaxVersion is 3.
func (*ElectLeadersV3Request) MaxVersion() int16 { return electLeadersV3 }

// SetVersion does nothing: the type is version 3 only.
func (*ElectLeadersV3Request) SetVersion(int16) {}

// GetVersion is 3.
func (*ElectLeadersV3Request) GetVersion() int16 { return electLeadersV3 }

// IsFlexible is true (ElectLeaders is flexible from v2).
func (*ElectLeadersV3Request) IsFlexible() bool { return true }

// ResponseKind returns a v3 (v2-layout) response with kmsg's defaults.
func (*ElectLeadersV3Request) ResponseKind() kmsg.Response {
	r := kmsg.NewPtrElectLeadersResponse()
	r.Version = electLeadersV3
	return r
}

// AppendTo encodes the request body.
func (r *ElectLeadersV3Request) AppendTo(dst []byte) []byte {
	dst = kbin.AppendInt8(dst, r.ElectionType)
	dst = kbin.AppendCompactNullableArrayLen(dst, len(r.Topics), r.Topics == nil)
	for _, t := range r.Topics {
		dst = kbin.AppendCompactString(dst, t.Topic)
		dst = kbin.AppendCompactArrayLen(dst, len(t.Partitions))
		for _, p := range t.Partitions {
			dst = kbin.AppendInt32(dst, p)
		}
		dst = kbin.AppendCompactNullableArrayLen(dst, len(t.DesiredLeaders), t.DesiredLeaders == nil)
		for _, l := range t.DesiredLeaders {
			dst = kbin.AppendInt32(dst, l)
		}
		dst = kbin.AppendUvarint(dst, 0) // no tagged fields
	}
	dst = kbin.AppendInt32(dst, r.TimeoutMillis)
	return kbin.AppendUvarint(dst, 0)
}

// errBadV3 reports a v3 body that does not decode.
var errBadV3 = errors.New("ElectLeaders v3: malformed body")

// ReadFrom decodes the request body; tagged fields are skipped.
func (r *ElectLeadersV3Request) ReadFrom(src []byte) error {
	b := kbin.Reader{Src: src}
	*r = ElectLeadersV3Request{ElectionType: b.Int8()}
	if n := b.CompactArrayLen(); n >= 0 {
		r.Topics = make([]ElectLeadersV3Topic, 0, n)
		for i := int32(0); i < n && b.Ok(); i++ {
			t := ElectLeadersV3Topic{Topic: b.CompactString(), Partitions: readInt32s(&b)}
			if m := b.CompactArrayLen(); m >= 0 {
				t.DesiredLeaders = make([]int32, 0, m)
				for j := int32(0); j < m && b.Ok(); j++ {
					t.DesiredLeaders = append(t.DesiredLeaders, b.Int32())
				}
			}
			skipTags(&b)
			r.Topics = append(r.Topics, t)
		}
	}
	r.TimeoutMillis = b.Int32()
	skipTags(&b)
	if b.Complete() != nil {
		return errBadV3
	}
	return nil
}

// readInt32s reads a compact (non-null) int32 array.
func readInt32s(b *kbin.Reader) []int32 {
	n := b.CompactArrayLen()
	out := make([]int32, 0, max(n, 0))
	for i := int32(0); i < n && b.Ok(); i++ {
		out = append(out, b.Int32())
	}
	return out
}

// skipTags skips a tagged-field section.
func skipTags(b *kbin.Reader) {
	n := b.Uvarint()
	for i := uint32(0); i < n && b.Ok(); i++ {
		b.Uvarint() // tag
		b.Span(int(b.Uvarint()))
	}
}

// v2 returns the request as v2 sees it, without the desired leaders.
func (r *ElectLeadersV3Request) v2() *kmsg.ElectLeadersRequest {
	req := kmsg.NewPtrElectLeadersRequest()
	req.Version, req.ElectionType, req.TimeoutMillis = 2, r.ElectionType, r.TimeoutMillis
	if r.Topics != nil {
		req.Topics = make([]kmsg.ElectLeadersRequestTopic, 0, len(r.Topics))
	}
	for _, t := range r.Topics {
		rt := kmsg.NewElectLeadersRequestTopic()
		rt.Topic, rt.Partitions = t.Topic, t.Partitions
		req.Topics = append(req.Topics, rt)
	}
	return req
}

// electLeadersV3Decoder is the wire decoder for version 3.
func electLeadersV3Decoder() wire.Decoder {
	return wire.Decoder{Flexible: true, Decode: func(body []byte) (kmsg.Request, error) {
		r := &ElectLeadersV3Request{}
		if err := r.ReadFrom(body); err != nil {
			return nil, err
		}
		return r, nil
	}}
}
