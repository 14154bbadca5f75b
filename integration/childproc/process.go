package childproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/kzadmin/kzadmin/integration/waitfor"
)

// Spec says what to run.
type Spec struct {
	// Path is the program (looked up in PATH when it has no slash).
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory; empty means the parent's.
	Dir string
	// Env is added to the parent's environment (a later entry wins).
	Env []string
	// LogPath receives stdout and stderr, appended, so that the output of
	// every restart of the same server stays in one file. Required.
	LogPath string
	// OwnGroup puts the child in a process group of its own, so that a
	// Ctrl-C in the terminal reaches only the parent, which then shuts its
	// children down in order. Signals still go to the child alone.
	OwnGroup bool
}

// Process is one started child. Its methods are safe for concurrent use.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the child has been reaped
	err  error         // cmd.Wait's result; written before done is closed
}

// Start launches the child and returns without waiting for it.
func Start(spec Spec) (*Process, error) {
	if spec.LogPath == "" {
		return nil, fmt.Errorf("start %s: no log path", spec.Path)
	}
	logFile, err := os.OpenFile(spec.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: log: %w", spec.Path, err)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir = spec.Dir
	if len(spec.Env) > 0 {
		cmd.Env = append(os.Environ(), spec.Env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Die with the parent: a crashed or killed test must not leave a JVM.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: spec.OwnGroup}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the child has exited. A paused child has not.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait waits for the child to exit and returns its status: nil for exit
// code 0, otherwise an *exec.ExitError (which also tells a death by signal).
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Signal sends sig to the child. After the child has exited the error
// wraps os.ErrProcessDone.
func (p *Process) Signal(sig syscall.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal pid %d with %s: %w", p.Pid(), sig, err)
	}
	return nil
}

// Stop sends sig (SIGTERM for a graceful shutdown) and waits for the child
// to exit. It continues a paused child first, since a stopped process cannot
// act on the signal. If the child outlives grace it is killed, and the
// error wraps ErrStopTimeout. Stopping an exited child is not an error.
func (p *Process) Stop(sig syscall.Signal, grace time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	if err := p.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
	}
	if err := p.Kill(); err != nil {
		return err
	}
	return fmt.Errorf("pid %d after %s for %s: %w", p.Pid(), sig, grace, ErrStopTimeout)
}

// Kill sends SIGKILL and waits for the child to be reaped. Killing an
// exited child is not an error.
func (p *Process) Kill() error {
	if err := p.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	<-p.done
	return nil
}

// Until polls check like waitfor.Until, and also gives up as soon as the
// child exits, with an error that wraps ErrExited and names the exit
// status. On a nil *Process it is waitfor.Until: the caller then has no
// child to watch (e.g. waiting for a dead one's traces to go).
func (p *Process) Until(ctx context.Context, timeout, interval time.Duration, check func() error) error {
	if p == nil {
		return waitfor.Until(ctx, timeout, interval, check)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Ends when the child exits or when this call returns and cancels ctx.
	go func() {
		select {
		case <-p.done:
			cancel(p.exitedError())
		case <-ctx.Done():
		}
	}()
	err := waitfor.Until(ctx, timeout, interval, check)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, ErrExited) {
		return fmt.Errorf("%w; %w", cause, err)
	}
	return err
}

// exitedError describes the exit for Until; call it only once done is
// closed.
func (p *Process) exitedError() error {
	if p.err == nil {
		return fmt.Errorf("pid %d: %w with status 0", p.Pid(), ErrExited)
	}
	return fmt.Errorf("pid %d: %w: %w", p.Pid(), ErrExited, p.err)
}
