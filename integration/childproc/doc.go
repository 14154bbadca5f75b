// Package childproc owns the life of the child processes that the
// integration harnesses run (real ZooKeeper servers and Kafka brokers).
//
// A Process is one run of a program: started with its output appended to
// a log file and a parent-death signal, so that a crashed test leaves no
// JVM behind; reaped once; signalled, stopped (gracefully, then killed after
// a grace period) or killed; asked whether it has exited and with what
// status; and watched by Until, which polls a readiness condition and gives
// up as soon as the child dies instead of at its deadline.
//
// A Slot holds the one process of a server that a test stops, kills,
// pauses (SIGSTOP) and starts again: at most one runs at a time.
//
// The package also holds the two chores every harness does before a launch:
// a working directory that is temporary unless the caller names one
// (WorkDir), and free loopback ports (FreePorts).
//
// The package is Linux-only, as the parent-death signal is.
package childproc
