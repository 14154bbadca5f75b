package scram

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"
)

// clientFirst is a parsed client-first-message:
// gs2-header client-first-message-bare, where the GS2 header is
// "n," [ "a=" authzid ] "," and the bare part is
// [reserved-mext ","] "n=" saslname ",r=" c-nonce ["," extensions].
type clientFirst struct {
	gs2Header  string // "n,," or "n,a=<authzid>,", as sent
	authzid    string // decoded
	user       string // decoded
	nonce      string
	bare       string // client-first-message-bare, as sent
	extensions map[string]string
}

// parseClientFirst parses msg. Only the "n" GS2 flag is accepted: like
// Kafka, this server offers no channel binding, and a client claiming
// "y" or "p=" would be asking for something it cannot have.
func parseClientFirst(msg string) (clientFirst, error) {
	var cf clientFirst
	rest, ok := strings.CutPrefix(msg, "n,")
	if !ok {
		return cf, fmt.Errorf("client first message: GS2 flag is not \"n\" (channel binding is not supported)")
	}
	authz, bare, ok := strings.Cut(rest, ",")
	if !ok {
		return cf, fmt.Errorf("client first message: no GS2 header end")
	}
	if authz != "" {
		a, ok := strings.CutPrefix(authz, "a=")
		if !ok {
			return cf, fmt.Errorf("client first message: bad authzid")
		}
		var err error
		if cf.authzid, err = decodeSaslName(a); err != nil {
			return cf, fmt.Errorf("client first message: authzid: %w", err)
		}
	}
	cf.gs2Header, cf.bare = "n,"+authz+",", bare
	attrs := strings.Split(bare, ",")
	if len(attrs) > 0 && strings.HasPrefix(attrs[0], "m=") {
		// RFC 5802's reserved mandatory extension: a server that
		// does not know it must fail.
		return cf, fmt.Errorf("client first message: mandatory extension not supported")
	}
	if len(attrs) < 2 {
		return cf, fmt.Errorf("client first message: want n=<user>,r=<nonce>")
	}
	name, ok := strings.CutPrefix(attrs[0], "n=")
	if !ok {
		return cf, fmt.Errorf("client first message: no username")
	}
	var err error
	if cf.user, err = decodeSaslName(name); err != nil {
		return cf, fmt.Errorf("client first message: username: %w", err)
	}
	if cf.nonce, ok = strings.CutPrefix(attrs[1], "r="); !ok || !printable(cf.nonce) {
		return cf, fmt.Errorf("client first message: bad nonce")
	}
	if cf.extensions, err = parseExtensions(attrs[2:]); err != nil {
		return cf, fmt.Errorf("client first message: %w", err)
	}
	return cf, nil
}

// parseExtensions reads key=value attributes after the nonce, as Kafka's
// ScramExtensions does (tokenauth=true is the one Kafka knows).
func parseExtensions(attrs []string) (map[string]string, error) {
	var ext map[string]string
	for _, a := range attrs {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" || !alpha(k) {
			return nil, fmt.Errorf("bad extension %q", a)
		}
		if ext == nil {
			ext = make(map[string]string)
		}
		ext[k] = v
	}
	return ext, nil
}

// clientFinal is a parsed client-final-message:
// "c=" base64(gs2-header) ",r=" nonce ["," extensions] ",p=" base64(proof).
type clientFinal struct {
	channelBinding string // base64, as sent
	nonce          string
	withoutProof   string // client-final-message-without-proof
	proof          []byte
}

func parseClientFinal(msg string) (clientFinal, error) {
	var cf clientFinal
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return cf, fmt.Errorf("client final message: no proof")
	}
	cf.withoutProof = msg[:i]
	proof, err := base64.StdEncoding.DecodeString(msg[i+len(",p="):])
	if err != nil {
		return cf, fmt.Errorf("client final message: proof is not base64")
	}
	cf.proof = proof
	attrs := strings.Split(cf.withoutProof, ",")
	if len(attrs) < 2 {
		return cf, fmt.Errorf("client final message: want c=<binding>,r=<nonce>")
	}
	var ok bool
	if cf.channelBinding, ok = strings.CutPrefix(attrs[0], "c="); !ok {
		return cf, fmt.Errorf("client final message: no channel binding")
	}
	if cf.nonce, ok = strings.CutPrefix(attrs[1], "r="); !ok {
		return cf, fmt.Errorf("client final message: no nonce")
	}
	if _, err := parseExtensions(attrs[2:]); err != nil {
		return cf, fmt.Errorf("client final message: %w", err)
	}
	return cf, nil
}

// decodeSaslName undoes RFC 5802's saslname escaping: "=2C" is ',' and
// "=3D" is '='; any other '=' and any ',' are invalid. The name must be
// UTF-8 without NUL. (Kafka accepts ASCII only; accepting UTF-8 as the RFC
// does only lets more names authenticate, never different ones.)
func decodeSaslName(s string) (string, error) {
	if s == "" || !utf8.ValidString(s) || strings.ContainsAny(s, ",\x00") {
		return "", fmt.Errorf("invalid saslname")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "=2C"):
			b.WriteByte(',')
		case strings.HasPrefix(s[i:], "=3D"):
			b.WriteByte('=')
		default:
			return "", fmt.Errorf("invalid '=' escape in saslname")
		}
		i += 2
	}
	return b.String(), nil
}

// EncodeSaslName escapes a username for a client-first-message ('=' as
// "=3D", ',' as "=2C"). Clients do this; it is exported for tests and
// tools that speak the client side.
func EncodeSaslName(s string) string {
	return strings.NewReplacer("=", "=3D", ",", "=2C").Replace(s)
}

// printable reports whether s is a valid nonce: non-empty printable ASCII
// other than ','.
func printable(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e || s[i] == ',' {
			return false
		}
	}
	return true
}

func alpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z') {
			return false
		}
	}
	return true
}
