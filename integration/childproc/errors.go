package childproc

import "errors"

// The errors callers can test for with errors.Is.
var (
	// ErrExited is wrapped by Until when the child died before the
	// condition held, so a start-up wait fails at once, not at its deadline.
	ErrExited = errors.New("process exited")
	// ErrStopTimeout is wrapped by Stop when the child outlived the grace
	// period and had to be killed.
	ErrStopTimeout = errors.New("did not exit in time; killed")
	// ErrRunning is returned by Slot.Start while the slot's process lives.
	ErrRunning = errors.New("already running")
	// ErrNotRunning is returned by Slot.Signal when the slot has no process.
	ErrNotRunning = errors.New("not running")
)
