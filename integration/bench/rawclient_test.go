package bench

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawConn sends one pre-encoded request over and over and reads each
// response whole without decoding it, so that what it times is the
// server and the loopback, not a client's decoder.
type rawConn struct {
	nc    net.Conn
	frame []byte // size prefix, header and body
	buf   []byte
}

const correlationID = 7

func dialRaw(addr string, req kmsg.Request) (*rawConn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kzadmin-bench"))
	return &rawConn{nc: nc, frame: f.AppendRequest(nil, req, correlationID)}, nil
}

// roundTrip sends the request and returns the response's size.
func (c *rawConn) roundTrip() (int, error) {
	if _, err := c.nc.Write(c.frame); err != nil {
		return 0, fmt.Errorf("write: %w", err)
	}
	var size [4]byte
	if _, err := io.ReadFull(c.nc, size[:]); err != nil {
		return 0, fmt.Errorf("read size: %w", err)
	}
	n := int(binary.BigEndian.Uint32(size[:]))
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	c.buf = c.buf[:n]
	if _, err := io.ReadFull(c.nc, c.buf); err != nil {
		return 0, fmt.Errorf("read response: %w", err)
	}
	if n < 4 || binary.BigEndian.Uint32(c.buf) != correlationID {
		return 0, fmt.Errorf("response of %d bytes does not answer correlation id %d", n, correlationID)
	}
	return n, nil
}

func (c *rawConn) Close() error { return c.nc.Close() }
