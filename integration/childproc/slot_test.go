package childproc

import (
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func sleeper(t *testing.T) Spec {
	return Spec{Path: "sleep", Args: []string{"60"}, LogPath: filepath.Join(t.TempDir(), "out.log"), OwnGroup: true}
}

// startSlot returns a slot running `sleep 60`, killed when the test ends.
func startSlot(t *testing.T) (*Slot, *Process) {
	t.Helper()
	s := &Slot{}
	t.Cleanup(func() { _ = s.Kill() })
	p, err := s.Start(sleeper(t))
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

func TestSlotPauseResumeAndStopWhilePaused(t *testing.T) {
	s, p := startSlot(t)
	if _, pgrp := procStat(t, p.Pid()); pgrp != p.Pid() {
		t.Fatalf("process group %d; want its own (%d)", pgrp, p.Pid())
	}
	if _, err := s.Start(sleeper(t)); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Start = %v; want ErrRunning", err)
	}
	if err := s.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitState(t, p, "T")
	if !s.Running() {
		t.Fatal("a paused process counts as not running")
	}
	if err := s.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitState(t, p, "S")
	if err := s.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitState(t, p, "T")
	// Stop continues a paused process, or SIGTERM would wait for a resume.
	if err := s.Stop(syscall.SIGTERM, time.Minute); err != nil {
		t.Fatal(err)
	}
	var exitErr *exec.ExitError
	if !errors.As(p.Wait(), &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("exit status %v; want terminated by SIGTERM", p.Wait())
	}
	if s.Running() || s.Current() != nil {
		t.Fatal("slot still holds a stopped process")
	}
	if err := s.Signal(syscall.SIGCONT); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("signal to an empty slot: %v; want ErrNotRunning", err)
	}
	if err := s.Stop(syscall.SIGTERM, time.Second); err != nil {
		t.Fatalf("Stop of an empty slot: %v", err)
	}
}

func TestSlotRestartsAfterKillAndAfterDeath(t *testing.T) {
	s, first := startSlot(t)
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if !first.Exited() || s.Running() {
		t.Fatal("killed process still counted as running")
	}
	log := filepath.Join(t.TempDir(), "out.log")
	dies, err := s.Start(Spec{Path: "sh", Args: []string{"-c", "exit 4"}, LogPath: log})
	if err != nil {
		t.Fatal(err)
	}
	if got := exitCode(t, dies.Wait()); got != 4 {
		t.Fatalf("exit code %d, want 4", got)
	}
	// It died by itself: the slot still shows it, not running, and a new
	// Start replaces it.
	if s.Current() != dies || s.Running() {
		t.Fatal("slot lost or misreports a process that died by itself")
	}
	again, err := s.Start(sleeper(t))
	if err != nil {
		t.Fatalf("Start after the process died: %v", err)
	}
	if !s.Running() || s.Current() != again {
		t.Fatal("slot does not hold the new process")
	}
}
