package sasl

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/security/scram"
)

// The client side, for kzadmind's own connections to brokers (the
// controller's channels, the replica-log prober) on SASL_PLAINTEXT and
// SASL_SSL listeners. The exchange is Kafka's since KIP-152: SaslHandshake
// v1 names the mechanism, then each token travels in a SaslAuthenticate
// request, so errors come back as Kafka error codes with a message. No
// ApiVersions first: every Kafka since 1.0 serves both at these versions,
// and the broker does not require it.

// ClientCredentials are what a connection authenticates with.
type ClientCredentials struct {
	// Mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	Mechanism string
	Username  string
	Password  string
}

// Check reports an unsupported mechanism or missing credentials.
func (c ClientCredentials) Check() error {
	if c.Mechanism != MechanismPlain {
		if _, ok := scram.MechanismByName(c.Mechanism); !ok {
			return fmt.Errorf("SASL mechanism %q is not supported (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)", c.Mechanism)
		}
	}
	if c.Username == "" || c.Password == "" {
		return fmt.Errorf("SASL %s needs a username and a password", c.Mechanism)
	}
	return nil
}

// AuthError is a broker's refusal: UNSUPPORTED_SASL_MECHANISM from the
// handshake, SASL_AUTHENTICATION_FAILED (or another code) from
// SaslAuthenticate, with the broker's message.
type AuthError struct {
	Mechanism string
	Code      int16
	Message   string
	// Enabled lists the broker's mechanisms on UNSUPPORTED_SASL_MECHANISM.
	Enabled []string
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("SASL %s: %v", e.Mechanism, kerr.ErrorForCode(e.Code))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if len(e.Enabled) > 0 {
		msg += fmt.Sprintf(" (the broker enables %v)", e.Enabled)
	}
	return msg
}

// Authenticate runs the SASL exchange on nc as a Kafka client does, before
// any other request. ctx's deadline, if any, bounds it. On error the
// connection is unusable.
func Authenticate(ctx context.Context, nc net.Conn, cred ClientCredentials, clientID string) error {
	if err := cred.Check(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok {
		if err := nc.SetDeadline(d); err != nil {
			return fmt.Errorf("SASL: set deadline: %w", err)
		}
		defer func() { _ = nc.SetDeadline(time.Time{}) }()
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	rt := &roundTripper{nc: nc, r: bufio.NewReader(nc), clientID: clientID}
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, cred.Mechanism
	resp, err := rt.do(hs)
	if err != nil {
		return fmt.Errorf("SASL handshake: %w", err)
	}
	if h := resp.(*kmsg.SASLHandshakeResponse); h.ErrorCode != 0 {
		return &AuthError{Mechanism: cred.Mechanism, Code: h.ErrorCode, Enabled: h.SupportedMechanisms}
	}
	if cred.Mechanism == MechanismPlain {
		_, err := rt.authenticate(cred.Mechanism, []byte("\x00"+cred.Username+"\x00"+cred.Password))
		return err
	}
	m, _ := scram.MechanismByName(cred.Mechanism)
	return scramExchangeClient(rt, scram.NewClient(m, cred.Username, cred.Password), cred.Mechanism)
}

func scramExchangeClient(rt *roundTripper, c *scram.Client, mech string) error {
	first, err := c.First()
	if err != nil {
		return err
	}
	serverFirst, err := rt.authenticate(mech, first)
	if err != nil {
		return err
	}
	final, err := c.Final(serverFirst)
	if err != nil {
		return err
	}
	serverFinal, err := rt.authenticate(mech, final)
	if err != nil {
		return err
	}
	return c.Verify(serverFinal)
}

// roundTripper sends one request at a time with request header v1: both
// requests used are non-flexible at the versions sent.
type roundTripper struct {
	nc       net.Conn
	r        *bufio.Reader
	clientID string
	corr     int32
}

// authenticate sends one token and returns the server's.
func (rt *roundTripper) authenticate(mech string, token []byte) ([]byte, error) {
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.Version, req.SASLAuthBytes = 1, token
	resp, err := rt.do(req)
	if err != nil {
		return nil, fmt.Errorf("SASL authenticate: %w", err)
	}
	r := resp.(*kmsg.SASLAuthenticateResponse)
	if r.ErrorCode != 0 {
		msg := ""
		if r.ErrorMessage != nil {
			msg = *r.ErrorMessage
		}
		return nil, &AuthError{Mechanism: mech, Code: r.ErrorCode, Message: msg}
	}
	return r.SASLAuthBytes, nil
}

// maxAuthResponse bounds a response during authentication, as Kafka's
// clients bound what they read before they trust the server.
const maxAuthResponse = 512 << 10

func (rt *roundTripper) do(req kmsg.Request) (kmsg.Response, error) {
	rt.corr++
	buf := []byte{0, 0, 0, 0}
	buf = kbin.AppendInt16(buf, req.Key())
	buf = kbin.AppendInt16(buf, req.GetVersion())
	buf = kbin.AppendInt32(buf, rt.corr)
	buf = kbin.AppendString(buf, rt.clientID)
	buf = req.AppendTo(buf)
	binary.BigEndian.PutUint32(buf, uint32(len(buf)-4))
	if _, err := rt.nc.Write(buf); err != nil {
		return nil, err
	}
	var prefix [4]byte
	if _, err := io.ReadFull(rt.r, prefix[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(prefix[:]))
	if size < 4 || size > maxAuthResponse {
		return nil, fmt.Errorf("response size %d outside [4, %d]", size, maxAuthResponse)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(rt.r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if got := int32(binary.BigEndian.Uint32(body)); got != rt.corr {
		return nil, fmt.Errorf("response correlation id %d, expected %d", got, rt.corr)
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if err := resp.ReadFrom(body[4:]); err != nil {
		return nil, fmt.Errorf("decode %s response: %w", kmsg.NameForKey(req.Key()), err)
	}
	return resp, nil
}

// ClientCredentialsFromJAAS reads the username and password of a
// sasl.jaas.config value for mechanism, as a Kafka broker's inter-broker
// client takes them from its listener's login module: the options
// username and password of the first entry.
func ClientCredentialsFromJAAS(mechanism, jaas string) (ClientCredentials, error) {
	entries, err := ParseJAAS(jaas)
	if err != nil {
		return ClientCredentials{}, err
	}
	i := slices.IndexFunc(entries, func(e JAASEntry) bool { return e.Options["username"] != "" })
	if i < 0 {
		return ClientCredentials{}, fmt.Errorf("sasl.jaas.config: no login module with username and password")
	}
	return ClientCredentials{Mechanism: mechanism, Username: entries[i].Options["username"], Password: entries[i].Options["password"]}, nil
}
