package scram

import (
	"crypto/hmac"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Client is the client side of one SCRAM exchange (RFC 5802, without
// channel binding, as Kafka's ScramSaslClient): First, then Final on the
// server-first message, then Verify on the server-final message, which
// proves the server knew the credential too. kzadmind uses it for its
// inter-broker connections. It is not safe for concurrent use.
type Client struct {
	mech     Mechanism
	user     string
	password string
	// newNonce makes the client nonce; tests replace it to replay RFC
	// vectors.
	newNonce func() (string, error)

	bare        string // client-first-message-bare
	nonce       string
	authMessage string
	salted      []byte
}

// NewClient starts an exchange for user and password.
func NewClient(m Mechanism, user, password string) *Client {
	return &Client{mech: m, user: user, password: password, newNonce: randomString}
}

// First returns the client-first message: "n,,n=<user>,r=<nonce>".
func (c *Client) First() ([]byte, error) {
	if !c.mech.Valid() {
		return nil, fmt.Errorf("scram: invalid mechanism %d", c.mech)
	}
	nonce, err := c.newNonce()
	if err != nil {
		return nil, fmt.Errorf("%s client nonce: %w", c.mech, err)
	}
	c.nonce = nonce
	c.bare = "n=" + EncodeSaslName(c.user) + ",r=" + nonce
	return []byte("n,," + c.bare), nil
}

// Final answers the server-first message ("r=<nonce>,s=<salt>,i=<n>")
// with the client-final message carrying the proof.
func (c *Client) Final(serverFirst []byte) ([]byte, error) {
	msg := string(serverFirst)
	if e, ok := strings.CutPrefix(msg, "e="); ok {
		return nil, fmt.Errorf("%s: server error %q", c.mech, e)
	}
	attrs := map[string]string{}
	for _, a := range strings.Split(msg, ",") {
		k, v, ok := strings.Cut(a, "=")
		if !ok || len(k) != 1 {
			return nil, fmt.Errorf("%s: malformed server first message", c.mech)
		}
		if _, dup := attrs[k]; !dup {
			attrs[k] = v
		}
	}
	nonce, salt64, iter := attrs["r"], attrs["s"], attrs["i"]
	if !strings.HasPrefix(nonce, c.nonce) || len(nonce) == len(c.nonce) || !printable(nonce) {
		return nil, fmt.Errorf("%s: server nonce does not extend the client's", c.mech)
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil || len(salt) == 0 {
		return nil, fmt.Errorf("%s: bad salt in the server first message", c.mech)
	}
	iterations, err := strconv.Atoi(iter)
	if err != nil || iterations < MinIterations || iterations > 1<<20 {
		// Fewer than Kafka's minimum would be a downgrade; far more, a
		// way to make this side burn CPU.
		return nil, fmt.Errorf("%s: server asked for %q iterations", c.mech, iter)
	}
	if c.salted, err = c.mech.saltedPassword(c.password, salt, iterations); err != nil {
		return nil, err
	}
	withoutProof := "c=" + base64.StdEncoding.EncodeToString([]byte("n,,")) + ",r=" + nonce
	c.authMessage = c.bare + "," + msg + "," + withoutProof
	clientKey := c.mech.hmac(c.salted, []byte("Client Key"))
	sig := c.mech.hmac(c.mech.hash(clientKey), []byte(c.authMessage))
	proof := make([]byte, len(sig))
	subtle.XORBytes(proof, clientKey, sig)
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)), nil
}

// ErrServerSignature means the server-final message did not prove that
// the server holds the credential: it is not the server it claims to be.
var ErrServerSignature = errors.New("SCRAM server signature does not match")

// Verify checks the server-final message ("v=<signature>").
func (c *Client) Verify(serverFinal []byte) error {
	msg := string(serverFinal)
	if e, ok := strings.CutPrefix(msg, "e="); ok {
		return fmt.Errorf("%s: server error %q", c.mech, e)
	}
	v, ok := strings.CutPrefix(msg, "v=")
	if !ok || c.salted == nil {
		return fmt.Errorf("%s: malformed server final message", c.mech)
	}
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = v[:i] // extensions follow; none are known
	}
	got, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return fmt.Errorf("%s: server signature is not base64", c.mech)
	}
	want := c.mech.hmac(c.mech.hmac(c.salted, []byte("Server Key")), []byte(c.authMessage))
	if !hmac.Equal(got, want) {
		return fmt.Errorf("%s: %w", c.mech, ErrServerSignature)
	}
	return nil
}
