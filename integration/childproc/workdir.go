package childproc

import (
	"fmt"
	"net"
	"os"
)

// WorkDir is the directory a harness keeps a child's config, data and log
// in: one the caller named, or a temporary one that Remove deletes.
type WorkDir struct {
	Path string
	Temp bool // created by NewWorkDir, so Remove deletes it
}

// NewWorkDir returns path as given, or, when it is empty, a new temporary
// directory whose name starts with pattern (as os.MkdirTemp takes it).
func NewWorkDir(path, pattern string) (WorkDir, error) {
	if path != "" {
		return WorkDir{Path: path}, nil
	}
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return WorkDir{}, fmt.Errorf("temporary directory %s: %w", pattern, err)
	}
	return WorkDir{Path: dir, Temp: true}, nil
}

// Remove deletes a temporary directory and leaves a named one alone.
func (d WorkDir) Remove() error {
	if !d.Temp {
		return nil
	}
	if err := os.RemoveAll(d.Path); err != nil {
		return fmt.Errorf("remove %s: %w", d.Path, err)
	}
	return nil
}

// FreePorts returns n distinct free TCP ports on loopback. The ports are
// free when returned; another process could take one before it is used,
// which on a test machine is rare enough.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	listeners := make([]net.Listener, 0, n)
	// All are held open until the end so that the n ports are distinct.
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
