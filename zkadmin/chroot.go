package zkadmin

import (
	"fmt"
	"strings"
)

// chroot maps the caller's paths to the server's and back. go-zookeeper
// has no chroot support (Java's client takes it from the connect string), so
// every path crossing the package boundary goes through here: requests, multi
// ops, created (sequential) names, and watch events.
type chroot string

// full returns the server-side path of p. "/" is the chroot itself.
func (c chroot) full(p string) string {
	if c == "" {
		return p
	}
	if p == "/" {
		return string(c)
	}
	return string(c) + p
}

// strip returns the caller-side path of a server path, and false if the path
// lies outside the chroot.
func (c chroot) strip(p string) (string, bool) {
	if c == "" {
		return p, true
	}
	root := string(c)
	switch {
	case p == root:
		return "/", true
	case strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == '/':
		return p[len(root):], true
	}
	return "", false
}

// stripOrSelf is strip for paths the server returns for our own requests,
// which are always inside the chroot.
func (c chroot) stripOrSelf(p string) string {
	if s, ok := c.strip(p); ok {
		return s
	}
	return p
}

// normaliseChroot validates a chroot option: "" or "/" mean none, otherwise
// it must be a valid absolute path; a trailing slash is dropped.
func normaliseChroot(s string) (chroot, error) {
	if s == "" || s == "/" {
		return "", nil
	}
	s = strings.TrimSuffix(s, "/")
	if err := validatePath(s, false); err != nil {
		return "", fmt.Errorf("chroot %q: %w", s, err)
	}
	return chroot(s), nil
}

// validatePath checks a caller path before it is prefixed and sent, with the
// rules of ZooKeeper's PathUtils: absolute, no empty, "." or ".." segment,
// no trailing slash (except for the root, or the parent-slash form
// "/parent/" of a sequential create), no control characters.
func validatePath(p string, sequential bool) error {
	if p == "" || p[0] != '/' {
		return ErrInvalidPath
	}
	if p == "/" {
		return nil
	}
	body := p[1:]
	if strings.HasSuffix(p, "/") {
		if !sequential {
			return ErrInvalidPath
		}
		body = strings.TrimSuffix(body, "/")
	}
	for _, seg := range strings.Split(body, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return ErrInvalidPath
		}
	}
	for _, r := range p {
		if r == 0 || (r > 0 && r < 0x20) || (r >= 0x7f && r <= 0x9f) ||
			(r >= 0xd800 && r <= 0xf8ff) || (r >= 0xfff0 && r <= 0xffff) {
			return ErrInvalidPath
		}
	}
	return nil
}

// parentOf returns the parent of an absolute path ("/" for top-level).
func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}
