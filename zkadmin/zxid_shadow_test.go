package zkadmin

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/netcut"
)

// frame builds a length-prefixed frame of ZooKeeper's protocol.
func frame(parts ...any) []byte {
	var body bytes.Buffer
	for _, p := range parts {
		if err := binary.Write(&body, binary.BigEndian, p); err != nil {
			panic(err)
		}
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(body.Len()))
	return append(out, body.Bytes()...)
}

func connectRequest(lastZxid, session int64) []byte {
	return frame(int32(0), lastZxid, int32(4000), session, int32(16), make([]byte, 16))
}

func connectResponse(session int64) []byte {
	return frame(int32(0), int32(4000), session, int32(16), make([]byte, 16))
}

func reply(xid int32, zxid int64, payload string) []byte {
	return frame(xid, zxid, int32(0), []byte(payload))
}

func setWatches(relativeZxid int64) []byte {
	return frame(int32(9), int32(zkOpSetWatches), relativeZxid, int32(1), int32(2), []byte("/a"), int32(0), int32(0))
}

// recordingConn reads a fixed stream and records what is written.
type recordingConn struct {
	net.Conn // nil: only Read, Write and Close are used
	r        io.Reader
	written  [][]byte
}

func (c *recordingConn) Read(b []byte) (int, error) { return c.r.Read(b) }
func (c *recordingConn) Write(b []byte) (int, error) {
	c.written = append(c.written, bytes.Clone(b))
	return len(b), nil
}
func (c *recordingConn) Close() error { return nil }

func shadowed(s *zxidShadow, stream ...[]byte) (net.Conn, *recordingConn) {
	rec := &recordingConn{r: bytes.NewReader(bytes.Join(stream, nil))}
	conn, _ := s.dialer(func(string, string, time.Duration) (net.Conn, error) { return rec, nil })("tcp", "", 0)
	return conn, rec
}

// readFrame reads one frame as go-zookeeper does, in reads of at most
// chunk bytes for the body.
func readFrame(t *testing.T, r io.Reader, chunk int) []byte {
	t.Helper()
	head := make([]byte, 4)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(head))
	for i := 0; i < len(body); {
		n, err := r.Read(body[i:min(i+chunk, len(body))])
		if err != nil {
			t.Fatal(err)
		}
		i += n
	}
	return append(head, body...)
}

func TestShadowTakesZxidsOutOfAnswers(t *testing.T) {
	s := &zxidShadow{}
	s.last.Store(40) // seen on an earlier connection
	notification, ping, auth := reply(-1, 60, "event"), reply(-2, 60, ""), reply(-4, 0, "")
	conn, rec := shadowed(s, connectResponse(7), reply(1, 50, "first answer"), notification, ping, auth,
		reply(2, 0, "no zxid"), reply(3, 55, "second"))

	if _, err := conn.Write(connectRequest(0, 7)); err != nil {
		t.Fatal(err)
	}
	if want := connectRequest(40, 7); !bytes.Equal(rec.written[0], want) {
		t.Fatalf("connect request sent as %x, want %x", rec.written[0], want)
	}
	if got := readFrame(t, conn, 3); !bytes.Equal(got, connectResponse(7)) {
		t.Fatalf("connect response altered: %x", got)
	}
	if got := readFrame(t, conn, 3); !bytes.Equal(got, reply(1, 0, "first answer")) {
		t.Fatalf("answer handed over as %x, want its zxid zeroed", got)
	}
	if s.last.Load() != 50 {
		t.Fatalf("last zxid %d, want 50", s.last.Load())
	}
	for _, f := range [][]byte{notification, ping, auth, reply(2, 0, "no zxid")} {
		if got := readFrame(t, conn, 100); !bytes.Equal(got, f) {
			t.Fatalf("frame altered: %x, want %x", got, f)
		}
	}
	if s.last.Load() != 50 {
		t.Fatalf("last zxid %d after frames without one, want 50", s.last.Load())
	}
	readFrame(t, conn, 100)
	if s.last.Load() != 55 {
		t.Fatalf("last zxid %d, want 55", s.last.Load())
	}

	// setWatches carries what was seen before this connection, not what
	// its first answers saw since; other requests go as they are.
	other := frame(int32(4), int32(4), []byte("getData"))
	for _, f := range [][]byte{other, setWatches(0)} {
		if _, err := conn.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(rec.written[1], other) {
		t.Fatalf("request altered: %x", rec.written[1])
	}
	if want := setWatches(40); !bytes.Equal(rec.written[2], want) {
		t.Fatalf("setWatches sent as %x, want %x", rec.written[2], want)
	}

	// The next connection reports the last zxid seen.
	next, rec2 := shadowed(s, connectResponse(7))
	if _, err := next.Write(connectRequest(0, 7)); err != nil {
		t.Fatal(err)
	}
	if want := connectRequest(55, 7); !bytes.Equal(rec2.written[0], want) {
		t.Fatalf("next connect request %x, want %x", rec2.written[0], want)
	}
}

func TestShadowForgetsZxidOnExpiry(t *testing.T) {
	s := &zxidShadow{}
	s.last.Store(99)
	conn, _ := shadowed(s, connectResponse(0)) // the session expired
	if _, err := conn.Write(connectRequest(0, 7)); err != nil {
		t.Fatal(err)
	}
	readFrame(t, conn, 100)
	if s.last.Load() != 0 {
		t.Fatalf("last zxid %d after an expiry, want 0 (as go-zookeeper resets it)", s.last.Load())
	}
}

// FuzzShadowPassesFramesThrough: whatever the server sends, and however
// small the reads, what is handed over is the stream with the zxids of
// answers zeroed, up to the end of the last whole frame at least (a torn
// frame ends the connection in go-zookeeper anyway).
func FuzzShadowPassesFramesThrough(f *testing.F) {
	f.Add(append(reply(1, 5, "abc"), reply(-1, 7, "")...), uint8(3))
	f.Add(append(reply(2, 0, ""), frame(int32(-7))...), uint8(1))
	f.Add([]byte{0, 0, 0, 40, 1, 2}, uint8(64))
	f.Add([]byte{0xff, 0xff, 0xff, 0xf0, 1, 2}, uint8(5))
	f.Fuzz(func(t *testing.T, stream []byte, chunk uint8) {
		input := append(connectResponse(7), stream...)
		// The expected stream: answers (xid >= 0) lose their zxid, when
		// it is one go-zookeeper would record (above zero).
		want := bytes.Clone(input)
		whole := 0
		for at := 0; at+4 <= len(want); {
			size := int(binary.BigEndian.Uint32(want[at:]))
			// A torn frame's head is handed over as it would be whole.
			if at > 0 && size >= 16 && at+20 <= len(want) && int32(binary.BigEndian.Uint32(want[at+4:])) >= 0 &&
				int64(binary.BigEndian.Uint64(want[at+8:])) > 0 {
				clear(want[at+8 : at+16])
			}
			if size > len(want)-at-4 {
				break
			}
			at += 4 + size
			whole = at
		}
		conn, _ := shadowed(&zxidShadow{}, input)
		conn.Write(connectRequest(0, 7))
		var out []byte
		buf := make([]byte, int(chunk)%17+1)
		for {
			n, err := conn.Read(buf)
			out = append(out, buf[:n]...)
			if err != nil {
				break
			}
		}
		if len(out) < whole || !bytes.Equal(out[:whole], want[:whole]) {
			t.Fatalf("handed over %x\nwant %x (first %d bytes)", out, want, whole)
		}
		if !bytes.HasPrefix(want[whole:], out[whole:]) {
			t.Fatalf("torn frame altered: %x", out[whole:])
		}
	})
}

// libraryLastZxid reads go-zookeeper's own record of the last zxid, which
// the shadow keeps at zero.
func libraryLastZxid(c *Client) int64 {
	return reflect.ValueOf(c.conn).Elem().FieldByName("lastZxid").Int()
}

// TestWatchesAcrossAReconnect, with real ZooKeeper: go-zookeeper never
// records a zxid (so its race cannot happen), and the watches it re-arms
// after a reconnect fire for exactly the changes made while it was away:
// the relative zxid it sends is the last one seen before.
func TestWatchesAcrossAReconnect(t *testing.T) {
	proxy := netcut.New(t, env.server.Addr())
	c := connect(t, Options{Servers: []string{proxy.Addr()}, SessionTimeout: 10 * time.Second})
	other := connect(t, Options{Chroot: c.Chroot()})
	ctx := testCtx(t)
	mustCreate(t, c, "/changed", []byte("v1"), Persistent)
	mustCreate(t, c, "/unchanged", []byte("v1"), Persistent)
	_, _, changedW, err := c.GetW(ctx, "/changed")
	if err != nil {
		t.Fatal(err)
	}
	_, _, unchangedW, err := c.GetW(ctx, "/unchanged")
	if err != nil {
		t.Fatal(err)
	}
	session := c.SessionID()

	proxy.Cut()
	waitFor(t, "client disconnected", waitTimeout, func() bool { return c.State() != StateConnected })
	if _, err := other.Set(ctx, "/changed", []byte("v2"), AnyVersion); err != nil {
		t.Fatal(err)
	}
	proxy.Heal()
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if c.SessionID() != session {
		t.Fatalf("session changed: 0x%x then 0x%x", session, c.SessionID())
	}
	if ev := recv(t, changedW, waitTimeout); ev.Type != EventNodeDataChanged || ev.Path != "/changed" {
		t.Fatalf("watch on the changed znode: %+v", ev)
	}
	// A round trip after the reconnect, then every event sent before it
	// has been delivered: the unchanged znode's watch must still be quiet.
	if _, _, err := c.Get(ctx, "/unchanged"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.syncEvents(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-unchangedW:
		t.Fatalf("watch on the unchanged znode fired: %+v (relative zxid too low)", ev)
	default:
	}
	if got := libraryLastZxid(c); got != 0 {
		t.Fatalf("go-zookeeper recorded zxid %d", got)
	}
	if c.shadow.last.Load() == 0 {
		t.Fatal("the shadow recorded no zxid")
	}
}
