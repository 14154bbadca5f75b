package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultMaxRequestSize is Kafka's socket.request.max.bytes default, 100 MiB.
const DefaultMaxRequestSize int32 = 100 * 1024 * 1024

// eagerAlloc is the largest frame body allocated in one go from the size
// prefix alone. Larger bodies grow as their bytes arrive, so four bytes
// claiming 100 MiB cost nothing until the client actually sends them.
const eagerAlloc = 1 << 20

// FrameSizeError reports a size prefix the server refuses: negative, or
// larger than the configured maximum. The connection is closed.
type FrameSizeError struct {
	Size int32
	Max  int32
}

func (e *FrameSizeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("invalid request size %d", e.Size)
	}
	return fmt.Sprintf("request size %d is larger than the maximum %d (socket.request.max.bytes)", e.Size, e.Max)
}

// readFrame reads one size-prefixed frame and returns its body.
func readFrame(r io.Reader, maxSize int32) ([]byte, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(prefix[:]))
	if size < 0 || size > maxSize {
		return nil, &FrameSizeError{Size: size, Max: maxSize}
	}
	if size <= eagerAlloc {
		body := make([]byte, size)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, fmt.Errorf("read %d-byte request: %w", size, err)
		}
		return body, nil
	}
	var buf bytes.Buffer
	buf.Grow(eagerAlloc)
	if _, err := io.CopyN(&buf, r, int64(size)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read %d-byte request: %w", size, err)
	}
	return buf.Bytes(), nil
}

// header is a parsed request header. Versions v0, v1 and v2 share the first
// three fields; v1 adds the client id and v2 tagged fields after it.
type header struct {
	key           int16
	version       int16
	correlationID int32
	clientID      *string
}

// errShortHeader means a frame too short for even a v0 header.
var errShortHeader = errors.New("request shorter than a request header")

// parseHeaderStart reads key, version and correlation id, which every
// header version starts with, and returns the bytes after them.
func parseHeaderStart(frame []byte) (header, []byte, error) {
	if len(frame) < 8 {
		return header{}, nil, errShortHeader
	}
	h := header{
		key:           int16(binary.BigEndian.Uint16(frame[0:])),
		version:       int16(binary.BigEndian.Uint16(frame[2:])),
		correlationID: int32(binary.BigEndian.Uint32(frame[4:])),
	}
	return h, frame[8:], nil
}

// requestHeaderVersion is the header version Kafka's generator assigns to a
// request: v0 only for ControlledShutdown v0, v2 for flexible versions, v1
// for the rest.
func requestHeaderVersion(key, version int16, flexible bool) int {
	switch {
	case key == 7 && version == 0:
		return 0
	case flexible:
		return 2
	}
	return 1
}

// parseHeaderRest reads the header fields after the correlation id for
// header version hv and returns the body. The client id is a nullable
// int16-length string even in v2 (it is never compact, so that brokers can
// read an ApiVersions header of any version); v2 then carries tagged fields,
// none of which are defined, so they are skipped.
func parseHeaderRest(h *header, rest []byte, hv int) ([]byte, error) {
	if hv == 0 {
		return rest, nil
	}
	b := kbin.Reader{Src: rest}
	h.clientID = b.NullableString()
	if hv >= 2 {
		kmsg.SkipTags(&b)
	}
	if err := b.Complete(); err != nil {
		return nil, fmt.Errorf("request header v%d: %w", hv, err)
	}
	return b.Src, nil
}

// appendResponse appends a full response frame: size, correlation id, the
// empty tag section of response header v1 when flexibleHeader, and the body.
func appendResponse(dst []byte, correlationID int32, flexibleHeader bool, resp kmsg.Response) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = kbin.AppendInt32(dst, correlationID)
	if flexibleHeader {
		dst = append(dst, 0) // no header tagged fields
	}
	dst = resp.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}
