package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func frameOf(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func TestReadFrame(t *testing.T) {
	big := bytes.Repeat([]byte{7}, eagerAlloc+10)
	tests := []struct {
		name    string
		in      []byte
		max     int32
		want    []byte
		wantErr error
	}{
		{name: "empty body", in: frameOf(nil), max: 10, want: []byte{}},
		{name: "at the limit", in: frameOf([]byte("0123456789")), max: 10, want: []byte("0123456789")},
		{name: "over the limit", in: frameOf([]byte("0123456789a")), max: 10, wantErr: &FrameSizeError{}},
		{name: "negative size", in: []byte{0xff, 0xff, 0xff, 0xfe}, max: 10, wantErr: &FrameSizeError{}},
		{name: "truncated body", in: frameOf([]byte("abc"))[:6], max: 10, wantErr: io.ErrUnexpectedEOF},
		{name: "truncated prefix", in: []byte{0, 0}, max: 10, wantErr: io.ErrUnexpectedEOF},
		{name: "nothing", in: nil, max: 10, wantErr: io.EOF},
		{name: "grown body", in: frameOf(big), max: DefaultMaxRequestSize, want: big},
		{name: "grown body truncated", in: frameOf(big)[:eagerAlloc], max: DefaultMaxRequestSize, wantErr: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readFrame(bytes.NewReader(tt.in), tt.max)
			if tt.wantErr != nil {
				var sizeErr *FrameSizeError
				if _, ok := tt.wantErr.(*FrameSizeError); ok {
					if !errors.As(err, &sizeErr) {
						t.Fatalf("err = %v, want a FrameSizeError", err)
					}
					return
				}
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("readFrame = %d bytes, %v; want %d bytes", len(got), err, len(tt.want))
			}
		})
	}
}

func TestFrameSizeErrorMessage(t *testing.T) {
	if got := (&FrameSizeError{Size: 11, Max: 10}).Error(); got != "request size 11 is larger than the maximum 10 (socket.request.max.bytes)" {
		t.Errorf("message %q", got)
	}
	if got := (&FrameSizeError{Size: -2, Max: 10}).Error(); got != "invalid request size -2" {
		t.Errorf("message %q", got)
	}
}

// headerBytes builds a request header by hand: key, version, correlation
// id, then whatever tail the case needs.
func headerBytes(key, version int16, corr int32, tail ...byte) []byte {
	b := kbin.AppendInt16(nil, key)
	b = kbin.AppendInt16(b, version)
	b = kbin.AppendInt32(b, corr)
	return append(b, tail...)
}

func TestParseHeader(t *testing.T) {
	clientID := kbin.AppendNullableString(nil, strPtr("cli"))
	null := kbin.AppendNullableString(nil, nil)
	// Two tagged fields: tag 0 with 2 bytes, tag 5 with 1 byte.
	tags := []byte{2, 0, 2, 0xaa, 0xbb, 5, 1, 0xcc}
	body := []byte("BODY")
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name     string
		frame    []byte
		hv       int
		clientID *string
		wantErr  bool
	}{
		{name: "v0 has no client id", frame: headerBytes(7, 0, 1, body...), hv: 0},
		{name: "v1", frame: headerBytes(3, 1, 2, cat(clientID, body)...), hv: 1, clientID: strPtr("cli")},
		{name: "v1 null client id", frame: headerBytes(3, 1, 3, cat(null, body)...), hv: 1},
		{name: "v2 no tags", frame: headerBytes(3, 9, 4, cat(clientID, []byte{0}, body)...), hv: 2, clientID: strPtr("cli")},
		{name: "v2 with tags", frame: headerBytes(3, 9, 5, cat(clientID, tags, body)...), hv: 2, clientID: strPtr("cli")},
		{name: "v2 null client id with tags", frame: headerBytes(3, 9, 6, cat(null, tags, body)...), hv: 2},
		{name: "v1 client id truncated", frame: headerBytes(3, 1, 7, 0, 9, 'a'), hv: 1, wantErr: true},
		{name: "v2 tags truncated", frame: headerBytes(3, 9, 8, cat(clientID, []byte{1, 0, 9, 1})...), hv: 2, wantErr: true},
		{name: "v2 tags missing", frame: headerBytes(3, 9, 9, clientID...), hv: 2, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, rest, err := parseHeaderStart(tt.frame)
			if err != nil {
				t.Fatalf("parseHeaderStart: %v", err)
			}
			got, err := parseHeaderRest(&h, rest, tt.hv)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseHeaderRest succeeded, want an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("parseHeaderRest: %v", err)
			}
			if !bytes.Equal(got, body) {
				t.Errorf("body %q, want %q", got, body)
			}
			if (h.clientID == nil) != (tt.clientID == nil) || h.clientID != nil && *h.clientID != *tt.clientID {
				t.Errorf("client id %v, want %v", h.clientID, tt.clientID)
			}
		})
	}
}

func TestParseHeaderStartShort(t *testing.T) {
	if _, _, err := parseHeaderStart(make([]byte, 7)); !errors.Is(err, errShortHeader) {
		t.Fatalf("err = %v, want errShortHeader", err)
	}
	h, rest, err := parseHeaderStart(headerBytes(-2, -3, -4))
	if err != nil || h.key != -2 || h.version != -3 || h.correlationID != -4 || len(rest) != 0 {
		t.Fatalf("got %+v %q %v", h, rest, err)
	}
}

func TestRequestHeaderVersion(t *testing.T) {
	tests := []struct {
		key, version int16
		flexible     bool
		want         int
	}{
		{7, 0, false, 0}, // ControlledShutdown v0, the only header v0
		{7, 1, false, 1},
		{7, 3, true, 2},
		{18, 0, false, 1},
		{18, 3, true, 2},
		{3, 12, true, 2},
	}
	for _, tt := range tests {
		if got := requestHeaderVersion(tt.key, tt.version, tt.flexible); got != tt.want {
			t.Errorf("requestHeaderVersion(%d, %d, %v) = %d, want %d", tt.key, tt.version, tt.flexible, got, tt.want)
		}
	}
}

func TestAppendResponseHeaders(t *testing.T) {
	resp := kmsg.NewPtrMetadataResponse()
	resp.SetVersion(9)
	bodyLen := len(resp.AppendTo(nil))
	for _, flexible := range []bool{false, true} {
		out := appendResponse([]byte("junk"), 42, flexible, resp)[4:]
		size := int(binary.BigEndian.Uint32(out))
		wantSize := 4 + bodyLen
		if flexible {
			wantSize++
		}
		if size != wantSize || len(out) != 4+size {
			t.Fatalf("flexible=%v: size %d, frame %d bytes; want %d", flexible, size, len(out), wantSize)
		}
		if corr := int32(binary.BigEndian.Uint32(out[4:])); corr != 42 {
			t.Fatalf("correlation id %d", corr)
		}
		if flexible && out[8] != 0 {
			t.Fatalf("header tag count %d, want 0", out[8])
		}
	}
}
