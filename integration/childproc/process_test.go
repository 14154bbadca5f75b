package childproc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/waitfor"
)

// start runs script under sh with its output in a fresh log, and kills it
// when the test ends.
func start(t *testing.T, script string, ownGroup bool) (*Process, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "out.log")
	p, err := Start(Spec{Path: "sh", Args: []string{"-c", script}, LogPath: log, OwnGroup: ownGroup})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Kill() })
	return p, log
}

// waitLog waits until the log holds want: the child's way to say it is
// ready (e.g. its signal traps are set).
func waitLog(t *testing.T, log, want string) {
	t.Helper()
	err := waitfor.Until(context.Background(), 10*time.Second, 5*time.Millisecond, func() error {
		data, err := os.ReadFile(log)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), want) {
			return errors.New("not yet in the log: " + want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// procStat returns the state letter and process group of pid from
// /proc/<pid>/stat.
func procStat(t *testing.T, pid int) (state string, pgrp int) {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The command name may hold spaces; the fields after its ')' do not.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	pgrp, err = strconv.Atoi(fields[2])
	if err != nil {
		t.Fatalf("pgrp in %q: %v", data, err)
	}
	return fields[0], pgrp
}

func waitState(t *testing.T, p *Process, want string) {
	t.Helper()
	err := waitfor.Until(context.Background(), 10*time.Second, 5*time.Millisecond, func() error {
		if state, _ := procStat(t, p.Pid()); state != want {
			return errors.New("state " + state + ", want " + want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("exit status %v is not an *exec.ExitError", err)
	}
	return exitErr.ExitCode()
}

func TestExitStatusAndLog(t *testing.T) {
	p, log := start(t, "echo hello; echo oops >&2; exit 3", false)
	if got := exitCode(t, p.Wait()); got != 3 {
		t.Fatalf("exit code %d, want 3", got)
	}
	if !p.Exited() {
		t.Fatal("Exited() false after Wait")
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("signal to an exited child: %v; want os.ErrProcessDone", err)
	}
	if err := p.Stop(syscall.SIGTERM, time.Second); err != nil {
		t.Fatalf("Stop of an exited child: %v", err)
	}
	// A second run appends to the same log rather than truncating it.
	again, err := Start(Spec{Path: "sh", Args: []string{"-c", "echo again"}, LogPath: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Wait(); err != nil {
		t.Fatalf("exit 0 gave %v", err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "hello\noops\nagain\n" {
		t.Fatalf("log = %q", data)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Spec{Path: "sh"}); err == nil {
		t.Fatal("started without a log path")
	}
	log := filepath.Join(t.TempDir(), "out.log")
	if _, err := Start(Spec{Path: "/nonexistent/program", LogPath: log}); err == nil {
		t.Fatal("started a missing program")
	}
}

func TestStopGraceful(t *testing.T) {
	// sh runs its trap once the backgrounded sleep's wait is interrupted.
	p, log := start(t, "trap 'echo bye; exit 7' TERM; echo ready; while :; do sleep 10 & wait $!; done", false)
	waitLog(t, log, "ready")
	if err := p.Stop(syscall.SIGTERM, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := exitCode(t, p.Wait()); got != 7 {
		t.Fatalf("exit code %d, want the trap's 7", got)
	}
	waitLog(t, log, "bye")
}

func TestStopKillsAfterGrace(t *testing.T) {
	// An ignored signal stays ignored across exec, so sleep ignores SIGTERM.
	p, log := start(t, "trap '' TERM; echo ready; exec sleep 60", false)
	waitLog(t, log, "ready")
	err := p.Stop(syscall.SIGTERM, 50*time.Millisecond)
	if !errors.Is(err, ErrStopTimeout) {
		t.Fatalf("Stop = %v; want ErrStopTimeout", err)
	}
	var exitErr *exec.ExitError
	if !errors.As(p.Wait(), &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("exit status %v; want killed by SIGKILL", p.Wait())
	}
}

func TestKill(t *testing.T) {
	p, _ := start(t, "exec sleep 60", false)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() {
		t.Fatal("Exited() false after Kill")
	}
}

func TestUntilGivesUpWhenTheChildDies(t *testing.T) {
	// read fails at once (stdin is /dev/null), so the child exits on its
	// own; the minute-long timeout must not be what ends the wait.
	p, _ := start(t, "read line; exit 2", false)
	checks := 0
	err := p.Until(context.Background(), time.Minute, time.Millisecond, func() error {
		checks++
		return errors.New("never ready")
	})
	if !errors.Is(err, ErrExited) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Until = %v; want ErrExited", err)
	}
	if !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "never ready") {
		t.Fatalf("Until = %v; want the exit status and the last failure", err)
	}
	if checks == 0 {
		t.Fatal("check never called")
	}
}

func TestUntilSucceedsWhileTheChildRuns(t *testing.T) {
	p, _ := start(t, "exec sleep 60", false)
	n := 0
	err := p.Until(context.Background(), time.Minute, time.Millisecond, func() error {
		if n++; n < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("Until = %v after %d checks; want nil after 3", err, n)
	}
	var none *Process
	err = none.Until(context.Background(), 20*time.Millisecond, time.Millisecond, func() error { return errors.New("down") })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("nil process Until = %v; want the deadline", err)
	}
}
