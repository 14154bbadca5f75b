package kafkaconn

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kbin"
)

// header is what the fake peer read of one request.
type header struct {
	key, version int16
	corr         int32
	clientID     *string // nil: header v0 (no client id)
	body         []byte  // after the client id (tags included)
}

// readRequest reads one request frame the way a broker does, up to the
// client id.
func readRequest(r io.Reader) (header, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return header{}, err
	}
	frame := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(r, frame); err != nil {
		return header{}, err
	}
	b := kbin.Reader{Src: frame}
	h := header{key: b.Int16(), version: b.Int16(), corr: b.Int32()}
	if h.key != 7 || h.version != 0 {
		h.clientID = b.NullableString()
	}
	h.body = b.Src
	if err := b.Complete(); err != nil {
		return header{}, fmt.Errorf("request header: %w", err)
	}
	return h, nil
}

// frame joins parts behind a size prefix.
func frame(parts ...[]byte) []byte {
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	return append(kbin.AppendInt32(nil, int32(len(body))), body...)
}

// reply answers one request with the bytes it returns; nil keeps the
// connection open, silent, until the client closes it.
type reply func(h header) []byte

// pipePeer starts a fake peer over net.Pipe that answers the requests in
// order with replies, recording their headers. The peer's goroutine is
// done, and the headers are final, once the returned wait returns; the
// client must be closed first.
func pipePeer(t *testing.T, cfg Config, replies ...reply) (c *Conn, wait func() []header) {
	t.Helper()
	client, server := net.Pipe()
	done := make(chan []header, 1)
	go func() {
		var got []header
		defer func() { done <- got }()
		defer server.Close()
		for _, rep := range replies {
			h, err := readRequest(server)
			if err != nil {
				return // the client gave up before sending
			}
			got = append(got, h)
			out := rep(h)
			if out == nil {
				_, _ = io.Copy(io.Discard, server)
				return
			}
			if _, err := server.Write(out); err != nil {
				return
			}
		}
	}()
	c = New(client, "peer:9092", cfg)
	t.Cleanup(func() { _ = c.Close() })
	return c, func() []header { _ = c.Close(); return <-done }
}
