package config

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// SecurityProtocol is a Kafka security protocol name.
type SecurityProtocol string

// The security protocols Kafka knows.
const (
	ProtocolPlaintext     SecurityProtocol = "PLAINTEXT"
	ProtocolSSL           SecurityProtocol = "SSL"
	ProtocolSASLPlaintext SecurityProtocol = "SASL_PLAINTEXT"
	ProtocolSASLSSL       SecurityProtocol = "SASL_SSL"
)

// securityProtocols lists the known protocols in Kafka's order.
func securityProtocols() []SecurityProtocol {
	return []SecurityProtocol{ProtocolPlaintext, ProtocolSSL, ProtocolSASLPlaintext, ProtocolSASLSSL}
}

// parseSecurityProtocol reads a protocol name, case-insensitively as Kafka
// does.
func parseSecurityProtocol(s string) (SecurityProtocol, bool) {
	up := SecurityProtocol(strings.ToUpper(strings.TrimSpace(s)))
	for _, p := range securityProtocols() {
		if p == up {
			return p, true
		}
	}
	return "", false
}

// DefaultSecurityProtocolMap returns Kafka's default
// listener.security.protocol.map: every protocol maps a listener of its own
// name to itself.
func DefaultSecurityProtocolMap() map[string]SecurityProtocol {
	m := make(map[string]SecurityProtocol)
	for _, p := range securityProtocols() {
		m[string(p)] = p
	}
	return m
}

// Listener is one entry of listeners or advertised.listeners:
// NAME://host:port. An empty Host binds every interface.
type Listener struct {
	Name string // upper case, as Kafka normalises it
	Host string // without brackets for IPv6
	Port int
}

// String renders the listener as Kafka writes it, with brackets around an
// IPv6 host.
func (l Listener) String() string {
	return l.Name + "://" + net.JoinHostPort(l.Host, strconv.Itoa(l.Port))
}

// listenerRE splits NAME://host:port. The name is letters, digits, '_' and
// '-'. The host is empty, a name or IPv4 address, or a bracketed IPv6
// address (with an optional %zone); the characters are Kafka's.
var listenerRE = regexp.MustCompile(`^([A-Za-z0-9_-]+)://(\[[0-9A-Za-z:.%_-]*\]|[0-9A-Za-z._%-]*):([0-9]+)$`)

// ParseListener reads one NAME://host:port.
func ParseListener(s string) (Listener, error) {
	m := listenerRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Listener{}, fmt.Errorf("%q is not NAME://host:port", s)
	}
	port, err := strconv.Atoi(m[3])
	if err != nil || port > 65535 {
		return Listener{}, fmt.Errorf("%q: port must be between 0 and 65535", s)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(m[2], "["), "]")
	return Listener{Name: strings.ToUpper(m[1]), Host: host, Port: port}, nil
}

// ParseListeners reads a comma-separated list of listeners. Blank entries
// are skipped; an empty string gives an empty list.
func ParseListeners(s string) ([]Listener, error) {
	var out []Listener
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		l, err := ParseListener(part)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// formatListeners renders listeners as a comma-separated list.
func formatListeners(ls []Listener) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.String()
	}
	return strings.Join(parts, ",")
}

// ParseSecurityProtocolMap reads NAME:PROTOCOL,NAME:PROTOCOL. Names are
// upper-cased as Kafka normalises them.
func ParseSecurityProtocolMap(s string) (map[string]SecurityProtocol, error) {
	m := make(map[string]SecurityProtocol)
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, proto, ok := strings.Cut(part, ":")
		name = strings.ToUpper(strings.TrimSpace(name))
		if !ok || name == "" {
			return nil, fmt.Errorf("entry %q is not NAME:PROTOCOL", strings.TrimSpace(part))
		}
		p, ok := parseSecurityProtocol(proto)
		if !ok {
			return nil, fmt.Errorf("entry %q: protocol must be one of %s", strings.TrimSpace(part), joinProtocols())
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("listener %s is mapped twice", name)
		}
		m[name] = p
	}
	return m, nil
}

// formatSecurityProtocolMap renders the map sorted by name, for stable output.
func formatSecurityProtocolMap(m map[string]SecurityProtocol) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ":" + string(m[n])
	}
	return strings.Join(parts, ",")
}

func joinProtocols() string {
	ps := securityProtocols()
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// listenerNames returns the names of ls in order, comma-separated.
func listenerNames(ls []Listener) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = l.Name
	}
	return strings.Join(s, ", ")
}

// ProtocolLayers says what a security protocol (any case) puts under the
// Kafka protocol: TLS, SASL, both or neither; ok is false for a name Kafka
// does not know.
func ProtocolLayers(protocol string) (useTLS, useSASL, ok bool) {
	p, ok := parseSecurityProtocol(protocol)
	return p == ProtocolSSL || p == ProtocolSASLSSL, p == ProtocolSASLPlaintext || p == ProtocolSASLSSL, ok
}
