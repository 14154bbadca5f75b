package kafkaconn

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AppendRequest appends the size-prefixed frame of req, sent with
// correlation id corr: the request header, then the body at the version
// req carries.
//
// The header is v2 for flexible versions, v1 otherwise, and v0 (no client
// id) for ControlledShutdown v0 alone, as Kafka's own clients send it.
// kmsg's RequestFormatter is not used because for ControlledShutdown v0 it
// writes neither the body nor the size.
func AppendRequest(dst []byte, req kmsg.Request, corr int32, clientID string) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0) // the size, filled in below
	dst = kbin.AppendInt16(dst, req.Key())
	dst = kbin.AppendInt16(dst, req.GetVersion())
	dst = kbin.AppendInt32(dst, corr)
	if req.Key() != kmsg.ControlledShutdown.Int16() || req.GetVersion() != 0 {
		// The client id keeps its int16 length even in header v2, so
		// that a broker can read it before it knows the version is
		// flexible.
		dst = kbin.AppendString(dst, clientID)
		if req.IsFlexible() {
			dst = append(dst, 0) // no tagged fields
		}
	}
	dst = req.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}
