package zkadmin

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/integration/netcut"
)

// frame builds a length-prefixed frame of go-zookeeper's protocol.
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

func connectResponse(session int64) []byte {
	return frame(int32(0), int32(4000), session, int32(16), make([]byte, 16))
}

func reply(xid int32, zxid int64, payload string) []byte {
	return frame(xid, zxid, int32(0), []byte(payload))
}

func request(xid, opcode int32) []byte { return frame(xid, opcode, []byte("body")) }

// guardedPipe returns a guarded connection and the server's end of it,
// with the handshake (connect request and response) already done.
func guardedPipe(t *testing.T, g *rearmGuard, session int64) (net.Conn, net.Conn) {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	conn, err := g.dialer(func(string, string, time.Duration) (net.Conn, error) { return client, nil })("tcp", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	// The connect request's bytes 8..12 are the last zxid's high half:
	// make them look like setWatches, which must not count.
	connectReq := frame(int32(0), int64(zkOpSetWatches)<<32, int32(4000), session, int32(0))
	go server.Write(connectResponse(session))
	go io.ReadFull(server, make([]byte, len(connectReq)))
	if _, err := conn.Write(connectReq); err != nil {
		t.Fatal(err)
	}
	got := readFrame(t, conn)
	if !bytes.Equal(got, connectResponse(session)) {
		t.Fatalf("connect response altered: %x", got)
	}
	return conn, server
}

// readFrame reads one frame as go-zookeeper does: the length, then the body.
func readFrame(t *testing.T, r io.Reader) []byte {
	t.Helper()
	head := make([]byte, 4)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(head))
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	return append(head, body...)
}

// readAsync reads one frame in the background, as the receive loop does.
func readAsync(t *testing.T, conn net.Conn) <-chan []byte {
	out := make(chan []byte, 1)
	go func() {
		head := make([]byte, 4)
		if _, err := io.ReadFull(conn, head); err != nil {
			close(out)
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(head))
		// Small reads, to cross the held head and the body.
		for i := 0; i < len(body); {
			n, err := conn.Read(body[i:min(i+3, len(body))])
			if err != nil {
				close(out)
				return
			}
			i += n
		}
		out <- append(head, body...)
	}()
	return out
}

// notYet checks that nothing arrives for a moment: it can only miss a
// defect, never fail a correct guard.
func notYet(t *testing.T, ch <-chan []byte, what string) {
	t.Helper()
	select {
	case got := <-ch:
		t.Fatalf("%s went through early: %x", what, got)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestRearmConnHoldsZxidAnswersUntilSetWatches(t *testing.T) {
	g := newRearmGuard(zerolog.Nop())
	if !g.arm(7, g.generation()) {
		t.Fatal("arm refused")
	}
	conn, server := guardedPipe(t, g, 7)

	// Frames that do not write the last zxid pass at once: a watch
	// notification, a ping, and an answer without a zxid.
	for _, f := range [][]byte{reply(-1, 9, "event"), reply(-2, 9, ""), reply(3, 0, "auth")} {
		got := readAsync(t, conn)
		go server.Write(f)
		if b := <-got; !bytes.Equal(b, f) {
			t.Fatalf("frame altered: %x, want %x", b, f)
		}
	}

	// The first answer with a zxid waits for setWatches.
	answer := reply(4, 12, "an answer long enough to cross the head")
	got := readAsync(t, conn)
	go server.Write(answer)
	notYet(t, got, "an answer before setWatches")
	// Other requests written first do not release it.
	go io.ReadFull(server, make([]byte, len(request(5, 4))))
	if _, err := conn.Write(request(5, 4)); err != nil {
		t.Fatal(err)
	}
	notYet(t, got, "an answer before setWatches")
	go io.ReadFull(server, make([]byte, len(request(6, zkOpSetWatches))))
	if _, err := conn.Write(request(6, zkOpSetWatches)); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, answer) {
		t.Fatalf("answer altered: %x, want %x", b, answer)
	}
	if g.ordered.Load() != 1 || g.fallbacks.Load() != 0 {
		t.Fatalf("ordered %d, fallbacks %d; want 1, 0", g.ordered.Load(), g.fallbacks.Load())
	}

	// Later answers are not held.
	later := reply(7, 13, "later")
	got = readAsync(t, conn)
	go server.Write(later)
	if b := <-got; !bytes.Equal(b, later) {
		t.Fatalf("later answer altered: %x", b)
	}
}

func TestRearmConnOnlyGatesTheArmedSession(t *testing.T) {
	g := newRearmGuard(zerolog.Nop())
	g.arm(7, g.generation())
	// A new session (the old one expired): go-zookeeper holds no watch.
	conn, server := guardedPipe(t, g, 8)
	answer := reply(1, 12, "x")
	got := readAsync(t, conn)
	go server.Write(answer)
	if b := <-got; !bytes.Equal(b, answer) {
		t.Fatalf("answer altered: %x", b)
	}
	if g.ordered.Load() != 0 {
		t.Fatal("an unarmed session was gated")
	}
}

func TestRearmConnCloseReleases(t *testing.T) {
	g := newRearmGuard(zerolog.Nop())
	g.arm(7, g.generation())
	conn, server := guardedPipe(t, g, 7)
	answer := reply(1, 12, "x")
	got := readAsync(t, conn)
	go server.Write(answer)
	notYet(t, got, "an answer before setWatches")
	conn.Close()
	<-got // the read ends (with what it had, or an error), and does not hang
	if g.fallbacks.Load() != 0 {
		t.Fatal("close counted as a fallback")
	}
}

func TestRearmGuardRefusesAnArmRacedByADisarm(t *testing.T) {
	g := newRearmGuard(zerolog.Nop())
	gen := g.generation()
	g.disarm() // the watch fired while its exists request was answered
	if g.arm(7, gen) || g.armedFor(7) {
		t.Fatal("armed after the watch was dropped")
	}
	if !g.arm(7, g.generation()) || !g.armedFor(7) || g.armedFor(8) || g.armedFor(0) {
		t.Fatal("arm with a fresh generation")
	}
	g.disarm()
	if g.armedFor(7) {
		t.Fatal("still armed after disarm")
	}
}

// TestReconnectOrderedAfterSetWatches runs the reconnect that go-zookeeper
// races on, with real ZooKeeper: the first answer after the connection
// comes back is read only after the watches were re-armed, with and
// without credentials (go-zookeeper re-sends those first).
func TestReconnectOrderedAfterSetWatches(t *testing.T) {
	for _, auth := range [][]Auth{nil, {{Scheme: "digest", Credentials: []byte("kafka:secret")}}} {
		proxy := netcut.New(t, env.server.Addr())
		c := connect(t, Options{Servers: []string{proxy.Addr()}, SessionTimeout: 10 * time.Second, Auth: auth})
		ctx := testCtx(t)
		mustCreate(t, c, "/watched", []byte("v"), Persistent)
		if _, _, _, err := c.GetW(ctx, "/watched"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "anchor watch armed", waitTimeout, func() bool { return c.guard.armedFor(c.SessionID()) })
		session := c.SessionID()

		for round := 1; round <= 3; round++ {
			proxy.Cut()
			waitFor(t, "client disconnected", waitTimeout, func() bool { return c.State() != StateConnected })
			proxy.Heal()
			if err := c.WaitConnected(ctx); err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Get(ctx, "/watched"); err != nil {
				t.Fatal(err)
			}
			if c.SessionID() != session {
				t.Fatalf("session changed: 0x%x then 0x%x", session, c.SessionID())
			}
			if got := c.guard.ordered.Load(); got != uint64(round) {
				t.Fatalf("auth %v, round %d: %d answers ordered after setWatches", auth != nil, round, got)
			}
		}
		if n := c.guard.fallbacks.Load(); n != 0 {
			t.Fatalf("auth %v: %d answers let through by the fallback", auth != nil, n)
		}
	}
}

// TestAnchorCreatedBySomeoneElse: the anchor znode is not ours to own.
// Should a script create it, the watch fires, the guard is disarmed at
// once, and the Client watches it again (now as a data watch).
func TestAnchorCreatedBySomeoneElse(t *testing.T) {
	proxy := netcut.New(t, env.server.Addr())
	eventsSeen := make(chan Event, 16)
	// No chroot, so that the anchor's events are not dropped as outside it.
	c := connect(t, Options{Servers: []string{proxy.Addr()}, Chroot: "/", SessionTimeout: 10 * time.Second,
		OnEvent: func(ev Event) {
			if ev.Type != EventSession {
				eventsSeen <- ev
			}
		}})
	ctx := testCtx(t)
	waitFor(t, "anchor watch armed", waitTimeout, func() bool { return c.guard.armedFor(c.SessionID()) })
	disarmsBefore := c.guard.generation()

	other := connect(t, Options{})
	if _, err := other.conn.Create(anchorPath, nil, 0, zkACL(OpenACL())); err != nil {
		t.Fatalf("create the anchor from another session: %v", err)
	}
	t.Cleanup(func() { other.conn.Delete(anchorPath, -1) })
	waitFor(t, "guard disarmed", waitTimeout, func() bool { return c.guard.generation() != disarmsBefore })
	waitFor(t, "anchor watch armed again", waitTimeout, func() bool { return c.guard.armedFor(c.SessionID()) })

	proxy.Cut()
	waitFor(t, "client disconnected", waitTimeout, func() bool { return c.State() != StateConnected })
	proxy.Heal()
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Exists(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	if c.guard.ordered.Load() != 1 || c.guard.fallbacks.Load() != 0 {
		t.Fatalf("ordered %d, fallbacks %d; want 1, 0", c.guard.ordered.Load(), c.guard.fallbacks.Load())
	}
	select {
	case ev := <-eventsSeen:
		t.Fatalf("the anchor's events reached OnEvent: %v", ev)
	default:
	}
}

// scriptedConn is a net.Conn that reads a fixed stream and discards writes.
type scriptedConn struct {
	net.Conn // nil: only Read, Write and Close are used
	r        io.Reader
}

func (c *scriptedConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *scriptedConn) Write(b []byte) (int, error) { return len(b), nil }
func (c *scriptedConn) Close() error                { return nil }

// FuzzRearmConnPassesBytesThrough: whatever the server sends, and however
// small the reads, the guarded connection hands over the stream unchanged,
// up to the end of the last whole frame at least (a torn frame ends the
// connection in go-zookeeper anyway).
func FuzzRearmConnPassesBytesThrough(f *testing.F) {
	f.Add(append(reply(1, 5, "abc"), reply(-1, 0, "")...), uint8(3))
	f.Add(append(reply(2, 0, ""), frame(int32(-7))...), uint8(1))
	f.Add([]byte{0, 0, 0, 40, 1, 2}, uint8(64))
	f.Fuzz(func(t *testing.T, stream []byte, chunk uint8) {
		g := newRearmGuard(zerolog.Nop())
		g.arm(7, g.generation())
		input := append(connectResponse(7), stream...)
		conn, _ := g.dialer(func(string, string, time.Duration) (net.Conn, error) {
			return &scriptedConn{r: bytes.NewReader(input)}, nil
		})("tcp", "", 0)
		conn.Write(request(0, 0))              // the handshake
		conn.Write(request(1, zkOpSetWatches)) // so no answer waits
		var out []byte
		buf := make([]byte, int(chunk)%17+1)
		for {
			n, err := conn.Read(buf)
			out = append(out, buf[:n]...)
			if err != nil {
				break
			}
		}
		if !bytes.HasPrefix(input, out) {
			t.Fatalf("stream altered:\n got %x\nwant %x", out, input)
		}
		whole := 0
		for rest := input; len(rest) >= 4; {
			size := int(binary.BigEndian.Uint32(rest))
			if 4+size > len(rest) {
				break
			}
			whole += 4 + size
			rest = rest[4+size:]
		}
		if len(out) < whole {
			t.Fatalf("read %d bytes, want at least the %d of whole frames", len(out), whole)
		}
	})
}
