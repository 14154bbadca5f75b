package bench

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuClock reads the CPU time used so far by this process (kzadmind, the
// simulated brokers and the client all run in it) and by the ZooKeeper
// server: on a 2-core machine the two compete, and where the time goes
// says which side a change should cut.
type cpuClock struct{ zkPid int }

// cpuTimes is CPU time used: ours and ZooKeeper's.
type cpuTimes struct{ ours, zk time.Duration }

func (c cpuClock) now() cpuTimes {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return cpuTimes{ours: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), zk: procCPU(c.zkPid)}
}

func (t cpuTimes) since(before cpuTimes) cpuTimes {
	return cpuTimes{ours: t.ours - before.ours, zk: t.zk - before.zk}
}

func (t cpuTimes) String() string {
	return fmt.Sprintf("CPU: ZooKeeper %s, this process %s", t.zk.Round(time.Millisecond), t.ours.Round(time.Millisecond))
}

// procCPU is a process's user and system time from /proc (0 when it
// cannot be read).
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: utime and stime are the 12th and 13th of them.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
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
