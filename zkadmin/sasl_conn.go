package zkadmin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// SASL to ZooKeeper. go-zookeeper has none, so it happens here, between
// go-zookeeper and the connection it dials, as ZooKeeper's own Java client
// does it: once the server has answered the connect request, the client
// sends its SASL tokens (opcode sasl, each answered by the server's next
// token) and nothing else until the exchange is over. On success the
// server adds sasl:<user> to the connection's identities, which own the
// znodes created with the creator ACL (zookeeper.set.acl), as they are the
// brokers' when they log in as the same user. Every connection
// authenticates again, so a reconnect (to the same server or another) is
// authenticated before go-zookeeper re-arms its watches.

// SASLMechanism starts one SASL exchange per connection.
type SASLMechanism interface {
	// Name names the mechanism in errors, e.g. "DIGEST-MD5".
	Name() string
	// Start begins an exchange with server (the address dialed,
	// host:port; Kerberos names the service by its host) and returns its
	// first token (empty when the mechanism has no initial response).
	Start(server string) (SASLExchange, []byte, error)
}

// SASLExchange is one exchange under way.
type SASLExchange interface {
	// Next takes the server's token and returns the client's next one.
	// done ends the exchange; a token returned with done is still sent.
	Next(server []byte) (token []byte, done bool, err error)
}

const (
	zkOpSASL = 102
	// saslXid is the xid of the exchange's requests. The server answers
	// with it and processes the requests before any of go-zookeeper's, so
	// no xid of go-zookeeper's can be confused with it.
	saslXid = 1
	// saslMaxRounds bounds the exchange; DIGEST-MD5 takes two, GSSAPI three.
	saslMaxRounds = 8
	// saslMaxFrame bounds a connect response or SASL answer.
	saslMaxFrame = 1 << 20
	// saslTimeout bounds the whole exchange on one connection.
	saslTimeout = 10 * time.Second
	// ZooKeeper's codes for a refused login.
	zkAuthFailed            = -115
	zkSessionRequiresSASL   = -124
	connectResponseMinBytes = 4 + 4 + 8 // protocol version, timeout, session id
)

// SASLError is a failed SASL login to a ZooKeeper server.
type SASLError struct {
	Server    string
	Mechanism string
	Err       error
}

func (e *SASLError) Error() string {
	return fmt.Sprintf("zookeeper %s: SASL %s login: %v", e.Server, e.Mechanism, e.Err)
}

func (e *SASLError) Unwrap() error { return e.Err }

// saslDialer wraps dial so that each connection logs in with mech before
// go-zookeeper sees the server's connect response; failed reports a
// failed login (the connection then fails, and go-zookeeper tries again).
func saslDialer(dial func(network, address string, timeout time.Duration) (net.Conn, error), mech SASLMechanism,
	failed func(error)) func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := dial(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &saslConn{Conn: conn, server: address, mech: mech, failed: failed}, nil
	}
}

// saslConn logs in inside go-zookeeper's first Read, which waits for the
// connect response: go-zookeeper writes nothing else until that Read
// returns, so the exchange owns the connection meanwhile.
type saslConn struct {
	net.Conn
	server string
	mech   SASLMechanism
	failed func(error)

	loggedIn bool
	pending  []byte // the connect response, handed over after the login
}

func (c *saslConn) Read(b []byte) (int, error) {
	if !c.loggedIn {
		frame, err := c.login()
		if err != nil {
			err = &SASLError{Server: c.server, Mechanism: c.mech.Name(), Err: err}
			c.failed(err)
			return 0, err
		}
		c.loggedIn, c.pending = true, frame
	}
	if len(c.pending) > 0 {
		n := copy(b, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// login reads the connect response and, when the server granted a
// session, runs the exchange. It returns the connect response's frame.
func (c *saslConn) login() ([]byte, error) {
	if err := c.Conn.SetDeadline(time.Now().Add(saslTimeout)); err != nil {
		return nil, err
	}
	connect, err := readZKFrame(c.Conn)
	if err != nil {
		return nil, fmt.Errorf("connect response: %w", err)
	}
	if len(connect) >= 4+connectResponseMinBytes && binary.BigEndian.Uint64(connect[connectSessionAt:]) == 0 {
		// The session expired: go-zookeeper starts a new one on the next
		// connection, which logs in then.
		return connect, c.Conn.SetDeadline(time.Time{})
	}
	ex, token, err := c.mech.Start(c.server)
	if err != nil {
		return nil, err
	}
	for round := 0; ; round++ {
		if round == saslMaxRounds {
			return nil, fmt.Errorf("no end after %d tokens", saslMaxRounds)
		}
		server, err := c.roundTrip(token)
		if err != nil {
			return nil, err
		}
		var done bool
		if token, done, err = ex.Next(server); err != nil {
			if server == nil && round == 0 {
				// A server without SASL answers the first token with
				// none at all.
				err = fmt.Errorf("%w (is SASL enabled on the server: authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider and a JAAS Server section?)", err)
			}
			return nil, err
		}
		if done {
			if token != nil {
				if _, err := c.roundTrip(token); err != nil {
					return nil, err
				}
			}
			return connect, c.Conn.SetDeadline(time.Time{})
		}
	}
}

// roundTrip sends one token and returns the server's answer.
func (c *saslConn) roundTrip(token []byte) ([]byte, error) {
	req := make([]byte, 4+4+4+4+len(token))
	binary.BigEndian.PutUint32(req, uint32(len(req)-4))
	binary.BigEndian.PutUint32(req[4:], saslXid)
	binary.BigEndian.PutUint32(req[8:], zkOpSASL)
	binary.BigEndian.PutUint32(req[12:], uint32(len(token)))
	copy(req[16:], token)
	if _, err := c.Conn.Write(req); err != nil {
		return nil, fmt.Errorf("send token: %w", err)
	}
	reply, err := readZKFrame(c.Conn)
	if err != nil {
		return nil, fmt.Errorf("read the server's token: %w", err)
	}
	if len(reply) < replyHeadLen {
		return nil, fmt.Errorf("short answer (%d bytes)", len(reply))
	}
	if xid := int32(binary.BigEndian.Uint32(reply[replyXidAt:])); xid != saslXid {
		return nil, fmt.Errorf("answer for xid %d, not the login's", xid)
	}
	switch code := int32(binary.BigEndian.Uint32(reply[16:])); code {
	case 0:
	case zkAuthFailed:
		return nil, errors.New("the server refused the login (AUTHFAILED): check the credentials (user name and password, or principal and keytab)")
	case zkSessionRequiresSASL:
		return nil, errors.New("the server refused the login and requires SASL (SESSIONCLOSEDREQUIRESASLAUTH)")
	default:
		return nil, fmt.Errorf("the server answered error %d", code)
	}
	body := reply[replyHeadLen:]
	if len(body) < 4 {
		return nil, errors.New("answer without a token")
	}
	n := int32(binary.BigEndian.Uint32(body))
	switch {
	case n < 0:
		return nil, nil // a null token
	case int(n) > len(body)-4:
		return nil, fmt.Errorf("token of %d bytes in an answer of %d", n, len(body)-4)
	}
	return body[4 : 4+n], nil
}

// readZKFrame reads one length-prefixed frame, the length included.
func readZKFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(head[:])
	if size > saslMaxFrame {
		return nil, fmt.Errorf("frame of %d bytes", size)
	}
	frame := make([]byte, 4+size)
	copy(frame, head[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}
