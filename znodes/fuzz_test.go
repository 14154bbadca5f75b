package znodes_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// fuzzDecoder checks the properties every decoder must have on any input:
// it never panics; a failure is a *DecodeError naming the znode and giving a
// reason; a success encodes without error, the encoding decodes back to the
// same value (with Version normalised to what Encode writes), and encoding
// that again yields identical bytes.
func fuzzDecoder[T encoder](f *testing.F, decode func([]byte) (T, error)) {
	f.Fuzz(func(t *testing.T, data []byte) {
		x1, err := decode(data)
		if err != nil {
			var de *znodes.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error is %T, not *DecodeError: %v", err, err)
			}
			if de.Znode == "" || de.Reason == "" {
				t.Fatalf("DecodeError without znode or reason: %+v", de)
			}
			return
		}
		e1, err := x1.Encode()
		if err != nil {
			t.Fatalf("decoded value %#v does not encode: %v", x1, err)
		}
		x2, err := decode(e1)
		if err != nil {
			t.Fatalf("decode(encode) of %s: %v", e1, err)
		}
		if !reflect.DeepEqual(normalizeVersion(x1), encoder(x2)) {
			t.Fatalf("unstable round trip via %s:\n first %#v\nsecond %#v", e1, x1, x2)
		}
		e2, err := x2.Encode()
		if err != nil || !bytes.Equal(e1, e2) {
			t.Fatalf("re-encode differs: %s vs %s (%v)", e1, e2, err)
		}
	})
}

func FuzzDecodeClusterID(f *testing.F) { fuzzDecoder(f, znodes.DecodeClusterID) }

func FuzzDecodeControllerRegistration(f *testing.F) {
	fuzzDecoder(f, znodes.DecodeControllerRegistration)
}

// epochPayload adapts the non-JSON /controller_epoch codec to fuzzDecoder.
type epochPayload int32

func (e epochPayload) Encode() ([]byte, error) { return znodes.EncodeControllerEpoch(int32(e)), nil }

func FuzzDecodeControllerEpoch(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (epochPayload, error) {
		e, err := znodes.DecodeControllerEpoch(b)
		return epochPayload(e), err
	})
}

func FuzzDecodeBrokerRegistration(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (znodes.BrokerRegistration, error) { return znodes.DecodeBrokerRegistration(1, b) })
}

func FuzzDecodeTopicAssignment(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (znodes.TopicAssignment, error) { return znodes.DecodeTopicAssignment("t", b) })
}

func FuzzDecodePartitionState(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (znodes.PartitionState, error) { return znodes.DecodePartitionState("t", 0, b) })
}

func FuzzDecodeReassignPartitions(f *testing.F) { fuzzDecoder(f, znodes.DecodeReassignPartitions) }

func FuzzDecodePreferredReplicaElection(f *testing.F) {
	fuzzDecoder(f, znodes.DecodePreferredReplicaElection)
}

func FuzzDecodeIsrChangeNotification(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (znodes.IsrChangeNotification, error) {
		return znodes.DecodeIsrChangeNotification("isr_change_0000000000", b)
	})
}

func FuzzDecodeLogDirEventNotification(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (znodes.LogDirEventNotification, error) {
		return znodes.DecodeLogDirEventNotification("", b)
	})
}

func FuzzDecodeEntityConfig(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (znodes.EntityConfig, error) { return znodes.DecodeEntityConfig("topics", "t", b) })
}

func FuzzDecodeConfigChangeNotification(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (znodes.ConfigChangeNotification, error) {
		return znodes.DecodeConfigChangeNotification("", b)
	})
}

func FuzzDecodeFinalizedFeatures(f *testing.F) { fuzzDecoder(f, znodes.DecodeFinalizedFeatures) }

func FuzzDecodeProducerIDBlock(f *testing.F) { fuzzDecoder(f, znodes.DecodeProducerIDBlock) }

func FuzzDecodeMigrationState(f *testing.F) { fuzzDecoder(f, znodes.DecodeMigrationState) }

func FuzzDecodeResourceACLs(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (znodes.ResourceACLs, error) {
		return znodes.DecodeResourceACLs("/kafka-acl/Topic/t", b)
	})
}

// aclChangePayload adapts the ACL change codecs, which encode without error.
type aclChangePayload struct {
	c        znodes.ACLChange
	extended bool
}

func (p aclChangePayload) Encode() ([]byte, error) {
	if p.extended {
		return znodes.EncodeExtendedACLChange(p.c), nil
	}
	return znodes.EncodeLiteralACLChange(p.c), nil
}

func FuzzDecodeExtendedACLChange(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (aclChangePayload, error) {
		c, err := znodes.DecodeExtendedACLChange(b)
		return aclChangePayload{c: c, extended: true}, err
	})
}

func FuzzDecodeLiteralACLChange(f *testing.F) {
	fuzzDecoder(f, func(b []byte) (aclChangePayload, error) {
		c, err := znodes.DecodeLiteralACLChange(b)
		return aclChangePayload{c: c}, err
	})
}

// FuzzDecodeDelegationToken normalises Version to what Encode writes, as
// normalizeVersion does for the other payloads: a version 1 or 2 token
// re-encodes as version 3.
func FuzzDecodeDelegationToken(f *testing.F) {
	for _, seed := range []string{
		`{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Aalice","renewers":["User%3Abob"],` +
			`"issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"abc"}`,
		`{"tokenId":"Zm9vYmFyYmF6cXV4MTIzNA","expiryTimestamp":1700086400123,"renewers":[],"owner":"User%3ACN%3Da+b",` +
			`"maxTimestamp":1700604800123,"issueTimestamp":1700000000123,"version":1}`,
		`{"version":2,"owner":"%3A","renewers":["User%3A%C3%A9","a:b:c"],"issueTimestamp":-1,` +
			`"maxTimestamp":0,"expiryTimestamp":0,"tokenId":""}`,
	} {
		f.Add([]byte(seed))
	}
	fuzzDecoder(f, func(b []byte) (znodes.DelegationToken, error) {
		tok, err := znodes.DecodeDelegationToken("tok", b)
		tok.Version = znodes.DelegationTokenVersion
		return tok, err
	})
}
