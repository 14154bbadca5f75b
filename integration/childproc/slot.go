package childproc

import (
	"fmt"
	"sync"
	"syscall"
	"time"
)

// Slot holds the one process of a server that a harness stops and starts
// again (a ZooKeeper server, a Kafka broker): at most one runs at a time.
// The zero value is an empty slot. Its methods are safe for concurrent use.
type Slot struct {
	mu   sync.Mutex
	proc *Process // the last one started; nil once stopped or killed
}

// Start starts a process in the slot. It fails with ErrRunning while the
// previous one lives; one that died by itself is replaced.
func (s *Slot) Start(spec Spec) (*Process, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil && !s.proc.Exited() {
		return nil, fmt.Errorf("pid %d: %w", s.proc.Pid(), ErrRunning)
	}
	p, err := Start(spec)
	if err != nil {
		return nil, err
	}
	s.proc = p
	return p, nil
}

// Current is the process last started, alive or dead, or nil when there is
// none or it was stopped or killed through the slot.
func (s *Slot) Current() *Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Running reports whether the slot's process is alive (it may be paused).
func (s *Slot) Running() bool {
	p := s.Current()
	return p != nil && !p.Exited()
}

// Signal sends sig to the slot's process; without one it fails with
// ErrNotRunning.
func (s *Slot) Signal(sig syscall.Signal) error {
	p := s.Current()
	if p == nil {
		return fmt.Errorf("signal %s: %w", sig, ErrNotRunning)
	}
	return p.Signal(sig)
}

// Stop stops the slot's process as Process.Stop does and empties the slot.
// An empty slot is not an error.
func (s *Slot) Stop(sig syscall.Signal, grace time.Duration) error {
	return s.end(func(p *Process) error { return p.Stop(sig, grace) })
}

// Kill kills the slot's process as Process.Kill does and empties the slot.
// An empty slot is not an error.
func (s *Slot) Kill() error { return s.end((*Process).Kill) }

// end runs halt, which waits for the exit, on the current process and then
// forgets it, unless a concurrent Start has already replaced it.
func (s *Slot) end(halt func(*Process) error) error {
	p := s.Current()
	if p == nil {
		return nil
	}
	err := halt(p)
	s.mu.Lock()
	if s.proc == p {
		s.proc = nil
	}
	s.mu.Unlock()
	return err
}
