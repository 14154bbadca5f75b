package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuClock reads the CPU time used so far by this process (kzadmind, the
// simulated brokers and the client all run in it) and by the ZooKeeper
// server: on a 2-core machine the two compete, and where the time goes
// says which side a change should cut.
type cpuClock struct{ zkPid int }

// cpuTimes is CPU time used: ours and ZooKeeper's, the latter also by
// what its threads do (zkThreadKinds).
type cpuTimes struct {
	ours, zk time.Duration
	zkBy     [len(zkThreadKinds)]time.Duration
}

func (c cpuClock) now() cpuTimes {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return cpuTimes{ours: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), zk: procCPU(c.zkPid), zkBy: zkThreadCPU(c.zkPid)}
}

func (t cpuTimes) since(before cpuTimes) cpuTimes {
	d := cpuTimes{ours: t.ours - before.ours, zk: t.zk - before.zk}
	for i := range d.zkBy {
		d.zkBy[i] = t.zkBy[i] - before.zkBy[i]
	}
	return d
}

func (t cpuTimes) String() string {
	var by []string
	for i, k := range zkThreadKinds {
		by = append(by, fmt.Sprintf("%s %s", k.name, t.zkBy[i].Round(time.Millisecond)))
	}
	return fmt.Sprintf("CPU: ZooKeeper %s (%s), this process %s", t.zk.Round(time.Millisecond),
		strings.Join(by, ", "), t.ours.Round(time.Millisecond))
}

// zkThreadKinds sorts ZooKeeper's threads by their names (as Linux keeps
// them, cut to 15 bytes). Measured, the API side's ZooKeeper CPU was up
// to twice the raw side's for the same znodes, and it was mostly not the
// writes: collections (which land on whichever side is running, and the
// API side runs longer) and JIT compilation (the JVM recompiling as the
// workload alternates between the two sides) took more of it than
// answering the API side's reads. The breakdown keeps that visible.
var zkThreadKinds = [...]struct {
	name     string
	prefixes []string
}{
	{"requests", []string{"ProcessThread", "CommitProc", "RequestThrottle"}},
	{"log", []string{"SyncThread"}},
	{"network", []string{"NIOServerCxn", "NIOWorkerThread"}},
	{"GC", []string{"GC Thread", "G1 "}},
	{"JIT", []string{"C1 CompilerThre", "C2 CompilerThre"}},
	{"other", []string{""}},
}

// zkThreadCPU is pid's CPU time by kind of thread (zero when it cannot be
// read). Threads that ended are missed, which ZooKeeper's long-lived
// threads make rare.
func zkThreadCPU(pid int) (by [len(zkThreadKinds)]time.Duration) {
	if pid == 0 {
		return by
	}
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	for _, path := range stats {
		name, cpu, ok := taskCPU(path)
		if !ok {
			continue
		}
		for i, k := range zkThreadKinds {
			if slices.ContainsFunc(k.prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
				by[i] += cpu
				break
			}
		}
	}
	return by
}

// procCPU is a process's user and system time from /proc (0 when it
// cannot be read).
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	_, cpu, _ := taskCPU(fmt.Sprintf("/proc/%d/stat", pid))
	return cpu
}

// taskCPU reads a process's or thread's stat file: its name and its user
// and system time.
func taskCPU(path string) (name string, cpu time.Duration, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, false
	}
	// The name is in parentheses and may hold spaces; of the fields after
	// it, utime and stime are the 12th and 13th.
	s := string(data)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 13 {
		return "", 0, false
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	const ticksPerSecond = 100 // USER_HZ on Linux
	return s[open+1 : end], time.Duration(utime+stime) * time.Second / ticksPerSecond, true
}

// zkPackets is ZooKeeper's count of packets received (requests, pings
// included), from its mntr command; -1 when it cannot be read.
func zkPackets(addr string) int64 {
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return -1
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte("mntr")); err != nil {
		return -1
	}
	out, err := io.ReadAll(conn)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "zk_packets_received\t"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// collectHeaps collects this process's heap and the ZooKeeper JVM's (with
// jcmd's GC.run, a full collection), so that a measured side starts with
// neither collector owing work. Both sides are treated alike; the garbage
// a side makes is still collected, but at the start of a later one, where
// with ZooKeeper's large young generation (the benchmark runs it with
// 4 GB) it is a small share of the collection. Without jcmd only this
// process's heap is collected.
func collectHeaps(b *testing.B, zkPid int) {
	b.Helper()
	runtime.GC()
	if zkPid <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "jcmd", strconv.Itoa(zkPid), "GC.run").CombinedOutput(); err != nil {
		b.Logf("collecting ZooKeeper's heap (jcmd %d GC.run): %v: %s", zkPid, err, out)
	}
}
