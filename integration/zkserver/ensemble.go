package zkserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kzadmin/kzadmin/integration/childproc"
)

// Ensemble is N ZooKeeper peers on loopback forming one quorum.
type Ensemble struct {
	Servers []*Server
}

// StartEnsemble launches n peers (n >= 1) and waits until every one serves.
// opts.DataDir and opts.ClientPort are ignored: each peer gets its own.
func StartEnsemble(ctx context.Context, n int, opts Options) (*Ensemble, error) {
	if n < 1 {
		return nil, fmt.Errorf("zookeeper ensemble: need at least one server, got %d", n)
	}
	ports, err := FreePorts(3 * n)
	if err != nil {
		return nil, err
	}
	peers := make([]string, n)
	for i := range n {
		peers[i] = fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, ports[3*i+1], ports[3*i+2])
	}
	e := &Ensemble{}
	for i := range n {
		o := opts
		o.DataDir, o.ClientPort = "", ports[3*i]
		s, err := newServer(o, i+1, peers)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.Servers = append(e.Servers, s)
		if err := s.launch(); err != nil {
			e.Close()
			return nil, err
		}
	}
	for _, s := range e.Servers {
		if err := s.WaitServing(ctx, s.opts.StartTimeout); err != nil {
			e.Close()
			return nil, fmt.Errorf("zookeeper ensemble: %w", err)
		}
	}
	return e, nil
}

// ConnectString lists every peer, as zookeeper.connect expects.
func (e *Ensemble) ConnectString() string {
	addrs := make([]string, len(e.Servers))
	for i, s := range e.Servers {
		addrs[i] = s.Addr()
	}
	return strings.Join(addrs, ",")
}

// Addrs lists every peer's client address.
func (e *Ensemble) Addrs() []string {
	addrs := make([]string, len(e.Servers))
	for i, s := range e.Servers {
		addrs[i] = s.Addr()
	}
	return addrs
}

// Leader returns the index of the peer that currently leads, or -1.
func (e *Ensemble) Leader() int {
	for i, s := range e.Servers {
		if mode, err := s.Mode(); err == nil && mode == "leader" {
			return i
		}
	}
	return -1
}

// WaitQuorum waits until every running peer serves again, e.g. after a
// restart.
func (e *Ensemble) WaitQuorum(ctx context.Context, timeout time.Duration) error {
	for _, s := range e.Servers {
		if !s.proc.Running() {
			continue
		}
		if err := s.WaitServing(ctx, timeout); err != nil {
			return err
		}
	}
	return nil
}

// Close kills every peer and removes their data.
func (e *Ensemble) Close() error {
	var errs []error
	for _, s := range e.Servers {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// FreePorts returns n distinct free TCP ports on loopback (see
// childproc.FreePorts, which it is kept here for callers to find).
func FreePorts(n int) ([]int, error) { return childproc.FreePorts(n) }
