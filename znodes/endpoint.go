package znodes

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Security protocol names (SecurityProtocol in Kafka).
const (
	ProtocolPlaintext     = "PLAINTEXT"
	ProtocolSSL           = "SSL"
	ProtocolSASLPlaintext = "SASL_PLAINTEXT"
	ProtocolSASLSSL       = "SASL_SSL"
)

// Endpoint is one advertised listener of a broker registration.
type Endpoint struct {
	// Listener is the listener name, upper-cased as Kafka normalises it.
	Listener string
	// Host is the advertised host; "" means no host (written "NAME://:port").
	Host string
	Port int32
	// SecurityProtocol is one of the Protocol* constants.
	SecurityProtocol string
}

// String returns Kafka's connection string: "NAME://host:port", with IPv6
// hosts in brackets and an empty host written as "NAME://:port".
func (e Endpoint) String() string {
	port := strconv.FormatInt(int64(e.Port), 10)
	switch {
	case e.Host == "":
		return e.Listener + "://:" + port
	case strings.Contains(e.Host, ":"):
		return e.Listener + "://[" + e.Host + "]:" + port
	}
	return e.Listener + "://" + e.Host + ":" + port
}

// endpointRE is Kafka's EndPoint.uriParseExp, anchored at both ends because
// Scala's pattern match requires a whole-string match. It is never mutated.
var endpointRE = regexp.MustCompile(`^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$`)

// csvSplitRE is Kafka's parseCsvList separator; Java's \s includes \x0B.
var csvSplitRE = regexp.MustCompile(`[ \t\n\x0B\f\r]*,[ \t\n\x0B\f\r]*`)

// DefaultListenerSecurityProtocolMap is what Kafka assumes when a
// registration has no listener_security_protocol_map: every listener name
// that is a security protocol name maps to that protocol.
func DefaultListenerSecurityProtocolMap() map[string]string {
	return map[string]string{
		ProtocolPlaintext:     ProtocolPlaintext,
		ProtocolSSL:           ProtocolSSL,
		ProtocolSASLPlaintext: ProtocolSASLPlaintext,
		ProtocolSASLSSL:       ProtocolSASLSSL,
	}
}

// NormalizeSecurityProtocol maps a protocol name to its canonical form the
// way SecurityProtocol.forName does (case-insensitive), or fails.
func NormalizeSecurityProtocol(name string) (string, error) {
	up := strings.ToUpper(name)
	switch up {
	case ProtocolPlaintext, ProtocolSSL, ProtocolSASLPlaintext, ProtocolSASLSSL:
		return up, nil
	}
	return "", fmt.Errorf("unknown security protocol %q", clip(name))
}

// ParseEndpoints parses advertised listener strings the way Kafka reads the
// "endpoints" of a broker registration: the entries are joined with commas
// and re-split (so whitespace around commas is dropped and an entry holding
// a comma becomes two), each is matched against Kafka's endpoint pattern,
// its listener name is upper-cased and looked up in protocolMap (nil means
// DefaultListenerSecurityProtocolMap; values must already be normalised),
// and listener names must be distinct.
func ParseEndpoints(entries []string, protocolMap map[string]string) ([]Endpoint, error) {
	if protocolMap == nil {
		protocolMap = DefaultListenerSecurityProtocolMap()
	}
	joined := strings.Join(entries, ",")
	if joined == "" {
		return nil, nil
	}
	var out []Endpoint
	seen := make(map[string]bool)
	for _, s := range csvSplitRE.Split(joined, -1) {
		if s == "" {
			continue
		}
		e, err := parseEndpoint(s, protocolMap)
		if err != nil {
			return nil, err
		}
		if seen[e.Listener] {
			return nil, fmt.Errorf("each listener must have a different name, %q is repeated", clip(e.Listener))
		}
		seen[e.Listener] = true
		out = append(out, e)
	}
	return out, nil
}

func parseEndpoint(s string, protocolMap map[string]string) (Endpoint, error) {
	m := endpointRE.FindStringSubmatch(s)
	if m == nil {
		return Endpoint{}, fmt.Errorf("unable to parse %q to a broker endpoint", clip(s))
	}
	port, err := strconv.ParseInt(m[3], 10, 32)
	if err != nil {
		return Endpoint{}, fmt.Errorf("endpoint %q: port out of range", clip(s))
	}
	listener := strings.ToUpper(m[1])
	protocol, ok := protocolMap[listener]
	if !ok {
		return Endpoint{}, fmt.Errorf("no security protocol defined for listener %s", clip(listener))
	}
	return Endpoint{Listener: listener, Host: m[2], Port: int32(port), SecurityProtocol: protocol}, nil
}

// validHost reports whether a host fits Kafka's endpoint pattern, so that a
// legacy v1 registration can be re-written as an endpoint string.
func validHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '%' || c == '.' || c == '_' || c == ':'
		if !ok {
			return false
		}
	}
	return true
}
