package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultZKPort is the port ZooKeeper's client assumes when a server in
// zookeeper.connect names none.
const DefaultZKPort = 2181

// ZKConnect is a parsed zookeeper.connect: "host:port,host:port/chroot".
type ZKConnect struct {
	// Servers are host:port pairs, each with a port (2181 when the string
	// gave none). IPv6 hosts are bracketed.
	Servers []string
	// Chroot is the path every znode path is relative to, e.g. "/kafka",
	// or "" for none. When set it starts with '/' and does not end with
	// one.
	Chroot string
}

// String renders the connect string, e.g. "zk1:2181,zk2:2181/kafka".
func (z ZKConnect) String() string {
	return strings.Join(z.Servers, ",") + z.Chroot
}

// IsZero reports whether no servers are set.
func (z ZKConnect) IsZero() bool { return len(z.Servers) == 0 && z.Chroot == "" }

// ParseZKConnect reads a zookeeper.connect string. As in ZooKeeper's client,
// the chroot is everything from the first '/', and a chroot of "/" alone
// means none. An empty string gives the zero ZKConnect.
func ParseZKConnect(s string) (ZKConnect, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return ZKConnect{}, nil
	}
	hosts, chroot := s, ""
	if i := strings.Index(s, "/"); i >= 0 {
		hosts, chroot = s[:i], s[i:]
	}
	if chroot == "/" {
		chroot = ""
	}
	z := ZKConnect{Chroot: chroot}
	for _, h := range strings.Split(hosts, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		server, err := normaliseServer(h)
		if err != nil {
			return ZKConnect{}, err
		}
		z.Servers = append(z.Servers, server)
	}
	if err := z.validate(); err != nil {
		return ZKConnect{}, err
	}
	return z, nil
}

// normaliseServer checks one host[:port] and adds the default port.
func normaliseServer(h string) (string, error) {
	host, port := h, strconv.Itoa(DefaultZKPort)
	if strings.HasPrefix(h, "[") || strings.Count(h, ":") == 1 {
		var err error
		host, port, err = net.SplitHostPort(h)
		if err != nil && strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
			host, port, err = h[1:len(h)-1], strconv.Itoa(DefaultZKPort), nil
		}
		if err != nil {
			return "", fmt.Errorf("server %q is not host:port", h)
		}
	} else if strings.Contains(h, ":") {
		return "", fmt.Errorf("server %q: put an IPv6 address in brackets, [addr]:port", h)
	}
	if host == "" {
		return "", fmt.Errorf("server %q has no host", h)
	}
	if hasBlankOrControl(host) {
		return "", fmt.Errorf("server %q: host has a blank or control character", h)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", fmt.Errorf("server %q: port must be between 1 and 65535", h)
	}
	return net.JoinHostPort(host, port), nil
}

// validate checks the servers are host:port and the chroot is a valid
// ZooKeeper path.
func (z ZKConnect) validate() error {
	for _, s := range z.Servers {
		host, port, err := net.SplitHostPort(s)
		if err != nil || host == "" {
			return fmt.Errorf("server %q is not host:port", s)
		}
		if hasBlankOrControl(host) {
			return fmt.Errorf("server %q: host has a blank or control character", s)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("server %q: port must be between 1 and 65535", s)
		}
	}
	if z.Chroot == "" {
		return nil
	}
	return validateChroot(z.Chroot)
}

func hasBlankOrControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0
}

// validateChroot applies ZooKeeper's path rules to a chroot.
func validateChroot(c string) error {
	if !strings.HasPrefix(c, "/") {
		return fmt.Errorf("chroot %q must start with '/'", c)
	}
	if strings.HasSuffix(c, "/") {
		return fmt.Errorf("chroot %q must not end with '/'", c)
	}
	for _, seg := range strings.Split(c[1:], "/") {
		switch seg {
		case "":
			return fmt.Errorf("chroot %q has an empty path segment", c)
		case ".", "..":
			return fmt.Errorf("chroot %q must not contain %q segments", c, seg)
		}
	}
	for _, r := range c {
		if r == 0 || (r > 0 && r < 0x20) || (r >= 0x7f && r <= 0x9f) ||
			(r >= 0xd800 && r <= 0xf8ff) || (r >= 0xfff0 && r <= 0xffff) {
			return fmt.Errorf("chroot %q has an invalid character %U", c, r)
		}
	}
	return nil
}
