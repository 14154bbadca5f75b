package zkadmin

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
)

// scriptedSASL is a mechanism whose exchange sends "hello" and is done
// once the server answers "ok".
type scriptedSASL struct{}

func (scriptedSASL) Name() string { return "TEST" }
func (scriptedSASL) Start(string) (SASLExchange, []byte, error) {
	return scriptedExchange{}, []byte("hello"), nil
}

type scriptedExchange struct{}

func (scriptedExchange) Next(server []byte) ([]byte, bool, error) {
	if string(server) != "ok" {
		return nil, false, errors.New("unexpected server token " + string(server))
	}
	return nil, true, nil
}

// saslReply is a server answer to a sasl request.
func saslReply(xid, code int32, token []byte, tokenLen int32) []byte {
	return frame(xid, int64(0), code, tokenLen, token)
}

// runLogin plays the server side of one login: the connect response, then
// for the client's one token the given reply. It returns what the client's
// first Read returned.
func runLogin(t *testing.T, connect, reply []byte) ([]byte, error) {
	t.Helper()
	client, server := net.Pipe()
	// Both ends stay open until the client has read: a pipe closed at one
	// end refuses SetDeadline at the other.
	defer server.Close()
	defer client.Close()
	var failed error
	conn := &saslConn{Conn: client, server: "zk:2181", mech: scriptedSASL{}, failed: func(err error) { failed = err }}
	go func() {
		if _, err := server.Write(connect); err != nil {
			return
		}
		if binary.BigEndian.Uint64(connect[12:20]) == 0 {
			return
		}
		req, err := readZKFrame(server)
		if err != nil || string(req[16:]) != "hello" || int32(binary.BigEndian.Uint32(req[8:])) != zkOpSASL {
			return
		}
		_, _ = server.Write(reply)
	}()
	buf := make([]byte, 64)
	n, err := io.ReadFull(conn, buf[:len(connect)])
	if err != nil && !errors.Is(err, failed) {
		t.Errorf("Read error %v, reported %v", err, failed)
	}
	return buf[:n], err
}

func TestSASLConnLogin(t *testing.T) {
	connect := connectResponse(0x1234)
	got, err := runLogin(t, connect, saslReply(saslXid, 0, []byte("ok"), 2))
	if err != nil || string(got) != string(connect) {
		t.Fatalf("login: read %x, %v; want the connect response", got, err)
	}
	// An expired session's answer is handed over without a login.
	expired := connectResponse(0)
	if got, err := runLogin(t, expired, nil); err != nil || string(got) != string(expired) {
		t.Fatalf("expired: read %x, %v", got, err)
	}
	for _, tc := range []struct {
		name  string
		reply []byte
		want  string
	}{
		{"refused", saslReply(saslXid, zkAuthFailed, nil, -1), "AUTHFAILED"},
		{"sasl required", saslReply(saslXid, zkSessionRequiresSASL, nil, -1), "requires SASL"},
		{"other error", saslReply(saslXid, -4, nil, -1), "error -4"},
		{"wrong xid", saslReply(7, 0, []byte("ok"), 2), "xid 7"},
		{"token overruns", saslReply(saslXid, 0, []byte("ok"), 99), "token of 99 bytes"},
		{"no token field", frame(int32(saslXid), int64(0), int32(0)), "answer without a token"},
		{"short answer", frame(int32(saslXid)), "short answer"},
		{"mechanism refuses", saslReply(saslXid, 0, []byte("no"), 2), "unexpected server token no"},
		{"huge frame", binary.BigEndian.AppendUint32(nil, 1<<30), "frame of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runLogin(t, connect, tc.reply)
			var se *SASLError
			if !errors.As(err, &se) || se.Mechanism != "TEST" || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), "zookeeper zk:2181: SASL TEST login") {
				t.Fatalf("err = %v, want a SASLError naming %q", err, tc.want)
			}
		})
	}
}
