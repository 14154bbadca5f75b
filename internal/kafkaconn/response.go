package kafkaconn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ReadResponse reads one size-prefixed response frame of at most max bytes
// from r and decodes it as the answer to req sent with correlation id
// corr. It is RoundTrip's reading half, for connections that frame their
// own requests.
func ReadResponse(r io.Reader, req kmsg.Request, corr, max int32) (kmsg.Response, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, fmt.Errorf("read response size: %w", err)
	}
	size := int32(binary.BigEndian.Uint32(prefix[:]))
	if size < 4 || size > max {
		return nil, &ResponseSizeError{Size: size, Max: max}
	}
	frame := make([]byte, size)
	if _, err := io.ReadFull(r, frame); err != nil {
		// The size promised more: a frame cut short, not a clean close.
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read response: %w", err)
	}
	return DecodeResponse(frame, req, corr)
}

// DecodeResponse decodes frame (the response without its size prefix) as
// the answer to req sent with correlation id corr.
func DecodeResponse(frame []byte, req kmsg.Request, corr int32) (kmsg.Response, error) {
	b := kbin.Reader{Src: frame}
	if got := b.Int32(); got != corr {
		return nil, &CorrelationError{Want: corr, Got: got}
	}
	// Flexible versions answer with response header v1 (tagged fields),
	// except ApiVersions: header v0 at every version, so a client can read
	// it before it knows what the broker speaks (KIP-511).
	if req.IsFlexible() && req.Key() != kmsg.ApiVersions.Int16() {
		kmsg.SkipTags(&b)
	}
	if err := b.Complete(); err != nil {
		return nil, fmt.Errorf("response header: %w", err)
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if err := resp.ReadFrom(b.Src); err != nil {
		if r, ok := unsupportedApiVersions(req, b.Src); ok {
			return r, nil
		}
		return nil, fmt.Errorf("decode response: %w", err)
	}
	return resp, nil
}

// unsupportedApiVersions recognises a broker's answer to an ApiVersions
// version it does not know: encoded as v0 whatever was asked, so only its
// leading error code reads right at the version sent.
func unsupportedApiVersions(req kmsg.Request, body []byte) (kmsg.Response, bool) {
	if req.Key() != kmsg.ApiVersions.Int16() || len(body) < 2 ||
		int16(binary.BigEndian.Uint16(body)) != kerr.UnsupportedVersion.Code {
		return nil, false
	}
	r := kmsg.NewPtrApiVersionsResponse()
	r.Version = req.GetVersion()
	r.ErrorCode = kerr.UnsupportedVersion.Code
	return r, true
}
