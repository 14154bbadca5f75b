package sasl

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// DigestMD5Client is the client side of SASL DIGEST-MD5 (RFC 2831) for
// authentication only (qop "auth", no integrity or privacy layer): the
// mechanism ZooKeeper's DigestLoginModule logs in with, which Kafka's
// brokers use towards ZooKeeper when their JAAS "Client" section names a
// username and password. The server never sees the password, only a hash
// bound to its nonce; its last message proves that it knows the password
// too (rspauth), and a server that cannot prove it is refused.
//
// One value serves one exchange: Start, then Next for each server token,
// until Next reports done.
type DigestMD5Client struct {
	Username, Password string
	// Protocol and ServerName make the digest-uri, "<protocol>/<server>":
	// ZooKeeper's are "zookeeper" and "zk-sasl-md5".
	Protocol, ServerName string
	// CNonce returns the client nonce; nil means 16 random bytes in
	// base64. Tests pin it.
	CNonce func() (string, error)

	step int
	// What the response was computed from, to check rspauth with.
	ha1, nonce, cnonce, digestURI string
}

// DigestMD5 is the mechanism's name.
const DigestMD5 = "DIGEST-MD5"

// digestNC is the nonce count: one exchange sends one response.
const digestNC = "00000001"

// maxDigestChallenge bounds a server token, as RFC 2831 bounds the
// challenge (2048 bytes) with room to spare.
const maxDigestChallenge = 4096

// Start returns the first token: DIGEST-MD5 has no initial response, so
// the client sends an empty token and the server answers with its
// challenge.
func (c *DigestMD5Client) Start() ([]byte, error) {
	if c.step != 0 {
		return nil, errors.New("DIGEST-MD5: exchange already started")
	}
	if c.Username == "" {
		return nil, errors.New("DIGEST-MD5: no username")
	}
	c.step = 1
	return []byte{}, nil
}

// Next takes the server's token and returns the client's next one. After
// the server's final token (rspauth), it checks that and reports done
// with nothing more to send.
func (c *DigestMD5Client) Next(server []byte) (token []byte, done bool, err error) {
	switch c.step {
	case 1:
		if len(server) == 0 {
			return nil, false, errors.New("DIGEST-MD5: the server sent no challenge")
		}
		resp, err := c.respond(server)
		if err != nil {
			return nil, false, fmt.Errorf("DIGEST-MD5: %w", err)
		}
		c.step = 2
		return resp, false, nil
	case 2:
		if err := c.checkRspAuth(server); err != nil {
			return nil, false, fmt.Errorf("DIGEST-MD5: %w", err)
		}
		c.step = 3
		return nil, true, nil
	default:
		return nil, false, errors.New("DIGEST-MD5: no token expected now")
	}
}

// respond computes the digest-response to a digest-challenge (RFC 2831
// 2.1.2).
func (c *DigestMD5Client) respond(challenge []byte) ([]byte, error) {
	if len(challenge) > maxDigestChallenge {
		return nil, fmt.Errorf("challenge of %d bytes is too long", len(challenge))
	}
	d, err := parseDigestDirectives(string(challenge))
	if err != nil {
		return nil, fmt.Errorf("challenge: %w", err)
	}
	nonce := d.first("nonce")
	if nonce == "" {
		return nil, errors.New("challenge has no nonce")
	}
	if alg := d.first("algorithm"); alg != "md5-sess" {
		return nil, fmt.Errorf("challenge asks for algorithm %q, not md5-sess", alg)
	}
	if qops := d.all("qop"); len(qops) > 0 && !slices.Contains(splitQop(qops), "auth") {
		return nil, fmt.Errorf("the server offers qop %q, not auth", strings.Join(qops, ","))
	}
	// Without charset=utf-8 the user name and password are ISO 8859-1
	// where they can be (RFC 2831 2.1.2.1).
	utf8Names := strings.EqualFold(d.first("charset"), "utf-8")
	realm := d.first("realm")
	cnonce, err := c.clientNonce()
	if err != nil {
		return nil, err
	}
	c.digestURI = c.Protocol + "/" + c.ServerName
	userKey := md5.Sum([]byte(encodeDigestText(c.Username, utf8Names) + ":" + encodeDigestText(realm, utf8Names) + ":" +
		encodeDigestText(c.Password, utf8Names)))
	a1 := slices.Concat(userKey[:], []byte(":"+nonce+":"+cnonce))
	c.ha1, c.nonce, c.cnonce = hexMD5(a1), nonce, cnonce
	var b strings.Builder
	if utf8Names {
		b.WriteString("charset=utf-8,")
	}
	fmt.Fprintf(&b, "username=%s,", quoteDigest(c.Username))
	if _, ok := d["realm"]; ok {
		fmt.Fprintf(&b, "realm=%s,", quoteDigest(realm))
	}
	fmt.Fprintf(&b, "nonce=%s,nc=%s,cnonce=%s,digest-uri=%s,response=%s,qop=auth",
		quoteDigest(nonce), digestNC, quoteDigest(cnonce), quoteDigest(c.digestURI), c.digest("AUTHENTICATE:"))
	return []byte(b.String()), nil
}

// digest is the request-digest (a2Prefix "AUTHENTICATE:") or the
// response-auth the server proves itself with (a2Prefix ":").
func (c *DigestMD5Client) digest(a2Prefix string) string {
	ha2 := hexMD5([]byte(a2Prefix + c.digestURI))
	return hexMD5([]byte(c.ha1 + ":" + c.nonce + ":" + digestNC + ":" + c.cnonce + ":auth:" + ha2))
}

// checkRspAuth checks the server's response-auth (RFC 2831 2.1.3).
func (c *DigestMD5Client) checkRspAuth(server []byte) error {
	if len(server) > maxDigestChallenge {
		return fmt.Errorf("server token of %d bytes is too long", len(server))
	}
	d, err := parseDigestDirectives(string(server))
	if err != nil {
		return fmt.Errorf("response-auth: %w", err)
	}
	got := d.first("rspauth")
	if got == "" {
		return errors.New("the server did not prove that it knows the password (no rspauth)")
	}
	if subtle.ConstantTimeCompare([]byte(strings.ToLower(got)), []byte(c.digest(":"))) != 1 {
		return errors.New("the server's rspauth is wrong: it does not know the password")
	}
	return nil
}

func (c *DigestMD5Client) clientNonce() (string, error) {
	if c.CNonce != nil {
		return c.CNonce()
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("client nonce: %w", err)
	}
	return base64.RawStdEncoding.EncodeToString(b), nil
}

func hexMD5(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// encodeDigestText is s as the digest hashes it: UTF-8 when the server
// said charset=utf-8, else ISO 8859-1 when every rune fits.
func encodeDigestText(s string, utf8Names bool) string {
	if utf8Names {
		return s
	}
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff || r == utf8.RuneError {
			return s
		}
		out = append(out, byte(r))
	}
	return string(out)
}

// quoteDigest is s as a quoted-string: backslash before '"' and '\'.
func quoteDigest(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// splitQop splits qop values that list several options ("auth,auth-int").
func splitQop(values []string) []string {
	var out []string
	for _, v := range values {
		for q := range strings.SplitSeq(v, ",") {
			out = append(out, strings.TrimSpace(q))
		}
	}
	return out
}

// digestDirectives are a challenge's directives: name (lower case) to
// values, in order; a directive such as realm may repeat.
type digestDirectives map[string][]string

func (d digestDirectives) first(name string) string {
	if v := d[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (d digestDirectives) all(name string) []string { return d[name] }

// parseDigestDirectives reads "name=value, name="quoted value", ...".
func parseDigestDirectives(s string) (digestDirectives, error) {
	out := digestDirectives{}
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || s[i] == ',') {
			i++
		}
	}
	for skip(); i < len(s); skip() {
		eq := strings.IndexByte(s[i:], '=')
		if eq <= 0 {
			return nil, fmt.Errorf("directive without a value at %q", truncate(s[i:], 20))
		}
		name := strings.ToLower(strings.TrimSpace(s[i : i+eq]))
		i += eq + 1
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		var value strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			closed := false
			for i < len(s) {
				ch := s[i]
				i++
				if ch == '\\' && i < len(s) {
					value.WriteByte(s[i])
					i++
					continue
				}
				if ch == '"' {
					closed = true
					break
				}
				value.WriteByte(ch)
			}
			if !closed {
				return nil, fmt.Errorf("directive %s: unterminated quoted value", name)
			}
		} else {
			j := i
			for j < len(s) && s[j] != ',' {
				j++
			}
			value.WriteString(strings.TrimSpace(s[i:j]))
			i = j
		}
		out[name] = append(out[name], value.String())
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
