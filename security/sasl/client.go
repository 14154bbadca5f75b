package sasl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
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
	// Mechanism is GSSAPI, PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	Mechanism string
	Username  string
	Password  string
	// Kerberos is GSSAPI's login, ServiceName the brokers' principal name
	// (sasl.kerberos.service.name) and ServerHost the broker's host, which
	// together name the service: <ServiceName>/<ServerHost>.
	Kerberos    *KerberosLogin
	ServiceName string
	ServerHost  string
}

// Check reports an unsupported mechanism or missing credentials.
func (c ClientCredentials) Check() error {
	if c.Mechanism == GSSAPI {
		if c.Kerberos == nil || c.ServiceName == "" {
			return errors.New("SASL GSSAPI needs a Kerberos login and the service name")
		}
		return nil
	}
	if c.Mechanism != MechanismPlain {
		if _, ok := scram.MechanismByName(c.Mechanism); !ok {
			return fmt.Errorf("SASL mechanism %q is not supported (GSSAPI, PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)", c.Mechanism)
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
// any other request. ctx bounds it, its deadline too; nc's deadline is
// cleared afterwards. On error the connection is unusable.
func Authenticate(ctx context.Context, nc net.Conn, cred ClientCredentials, clientID string) error {
	if err := cred.Check(); err != nil {
		return err
	}
	// The exchange reads through its own buffer, which holds nothing
	// once it ends: the broker sends only answers to what was asked.
	c := kafkaconn.New(nc, "", kafkaconn.Config{ClientID: clientID, MaxResponse: maxAuthResponse})
	defer func() { _ = nc.SetDeadline(time.Time{}) }()
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, cred.Mechanism
	resp, err := c.RoundTrip(ctx, hs)
	if err != nil {
		return fmt.Errorf("SASL handshake: %w", err)
	}
	if h := resp.(*kmsg.SASLHandshakeResponse); h.ErrorCode != 0 {
		return &AuthError{Mechanism: cred.Mechanism, Code: h.ErrorCode, Enabled: h.SupportedMechanisms}
	}
	if cred.Mechanism == MechanismPlain {
		_, err := authenticate(ctx, c, cred.Mechanism, []byte("\x00"+cred.Username+"\x00"+cred.Password))
		return err
	}
	if cred.Mechanism == GSSAPI {
		host := cred.ServerHost
		if host == "" {
			host = KafkaServiceHost(ctx, nc.RemoteAddr().String())
		}
		return gssapiExchangeClient(ctx, c, &GSSAPIClient{Tickets: cred.Kerberos, Service: cred.ServiceName + "/" + host})
	}
	m, _ := scram.MechanismByName(cred.Mechanism)
	return scramExchangeClient(ctx, c, scram.NewClient(m, cred.Username, cred.Password), cred.Mechanism)
}

func scramExchangeClient(ctx context.Context, conn *kafkaconn.Conn, c *scram.Client, mech string) error {
	first, err := c.First()
	if err != nil {
		return err
	}
	serverFirst, err := authenticate(ctx, conn, mech, first)
	if err != nil {
		return err
	}
	final, err := c.Final(serverFirst)
	if err != nil {
		return err
	}
	serverFinal, err := authenticate(ctx, conn, mech, final)
	if err != nil {
		return err
	}
	return c.Verify(serverFinal)
}

// gssapiExchangeClient runs GSSAPI's three tokens; the broker answers
// the last with an empty one.
func gssapiExchangeClient(ctx context.Context, conn *kafkaconn.Conn, g *GSSAPIClient) error {
	token, err := g.Start()
	if err != nil {
		return err
	}
	for {
		server, err := authenticate(ctx, conn, GSSAPI, token)
		if err != nil {
			return err
		}
		var done bool
		if token, done, err = g.Next(server); err != nil {
			return err
		}
		if done {
			_, err := authenticate(ctx, conn, GSSAPI, token)
			return err
		}
	}
}

// KafkaServiceHost is the host of a broker's service principal, as Kafka's
// Java clients name it: the host they connected to, or for an address
// given as an IP the name its reverse lookup finds (Java's getHostName).
func KafkaServiceHost(ctx context.Context, addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if net.ParseIP(host) == nil {
		return host
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	names, err := net.DefaultResolver.LookupAddr(lctx, host)
	if err != nil || len(names) == 0 {
		return host
	}
	return strings.TrimSuffix(names[0], ".")
}

// authenticate sends one token in SaslAuthenticate v1 (not flexible, so
// request header v1) and returns the server's.
func authenticate(ctx context.Context, c *kafkaconn.Conn, mech string, token []byte) ([]byte, error) {
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.Version, req.SASLAuthBytes = 1, token
	resp, err := c.RoundTrip(ctx, req)
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
