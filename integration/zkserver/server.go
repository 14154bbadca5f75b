package zkserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure one server. The zero value starts a standalone server
// on a free loopback port with a temporary data directory.
type Options struct {
	// DataDir holds the snapshot, the transaction log, zoo.cfg and the
	// server's output (server.log). Empty means a new temporary directory,
	// removed by Close.
	DataDir string
	// ClientPort is the client port; 0 picks a free one.
	ClientPort int
	// TickTime is ZooKeeper's tickTime; session timeouts are bounded to
	// 2..20 ticks. Zero means 500ms, which allows sessions of 1s to 10s.
	TickTime time.Duration
	// HeapMB caps the JVM heap; zero means 1024 (bulk-write tests need more than 256).
	HeapMB int
	// Java is the java binary; empty means "java" from PATH.
	Java string
	// StartTimeout bounds how long Start waits for the server to serve.
	// Zero means 60s.
	StartTimeout time.Duration
}

// Server is one ZooKeeper server process.
type Server struct {
	opts      Options
	id        int      // myid in an ensemble, 0 when standalone
	peers     []string // server.N lines, empty when standalone
	tempDir   bool
	classpath string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when the current process has exited
}

// Start launches a standalone server and waits until it serves requests.
func Start(ctx context.Context, opts Options) (*Server, error) {
	s, err := newServer(opts, 0, nil)
	if err != nil {
		return nil, err
	}
	if err := s.Restart(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func newServer(opts Options, id int, peers []string) (*Server, error) {
	cp, err := Classpath()
	if err != nil {
		return nil, err
	}
	if opts.TickTime == 0 {
		opts.TickTime = 500 * time.Millisecond
	}
	if opts.HeapMB == 0 {
		opts.HeapMB = 1024
	}
	if opts.Java == "" {
		opts.Java = "java"
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 60 * time.Second
	}
	s := &Server{opts: opts, id: id, peers: peers, classpath: cp}
	if s.opts.DataDir == "" {
		dir, err := os.MkdirTemp("", "kzadmin-zk-")
		if err != nil {
			return nil, fmt.Errorf("zookeeper data dir: %w", err)
		}
		s.opts.DataDir, s.tempDir = dir, true
	}
	if s.opts.ClientPort == 0 {
		ports, err := FreePorts(1)
		if err != nil {
			return nil, err
		}
		s.opts.ClientPort = ports[0]
	}
	return s, nil
}

// Addr is the client address, "127.0.0.1:port".
func (s *Server) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.opts.ClientPort))
}

// DataDir is where the server keeps its data, config and output.
func (s *Server) DataDir() string { return s.opts.DataDir }

// LogPath is the file the server's stdout and stderr go to.
func (s *Server) LogPath() string { return filepath.Join(s.opts.DataDir, "server.log") }

func (s *Server) writeConfig() (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\n", s.opts.TickTime.Milliseconds())
	fmt.Fprintf(&b, "dataDir=%s\n", filepath.Join(s.opts.DataDir, "data"))
	fmt.Fprintf(&b, "clientPort=%d\n", s.opts.ClientPort)
	b.WriteString("clientPortAddress=127.0.0.1\n")
	b.WriteString("admin.enableServer=false\n")
	b.WriteString("4lw.commands.whitelist=*\n")
	b.WriteString("maxClientCnxns=0\n")
	b.WriteString("maxSessionTimeout=60000\n")
	// The tests fsync a lot; keep the defaults (forceSync) so measured
	// rates are those of a real deployment.
	if len(s.peers) > 0 {
		b.WriteString("initLimit=20\nsyncLimit=10\n")
		for _, p := range s.peers {
			b.WriteString(p + "\n")
		}
	}
	dataDir := filepath.Join(s.opts.DataDir, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", fmt.Errorf("zookeeper data dir: %w", err)
	}
	if s.id > 0 {
		if err := os.WriteFile(filepath.Join(dataDir, "myid"), []byte(strconv.Itoa(s.id)+"\n"), 0o644); err != nil {
			return "", fmt.Errorf("zookeeper myid: %w", err)
		}
	}
	cfg := filepath.Join(s.opts.DataDir, "zoo.cfg")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
		return "", fmt.Errorf("zookeeper config: %w", err)
	}
	return cfg, nil
}

// Restart starts the process again (after Stop or Kill) on the same ports
// and data, and waits until it serves. On a running server it is an error.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.launch(); err != nil {
		return err
	}
	if len(s.peers) > 0 {
		return nil // an ensemble peer serves only once a quorum is up
	}
	return s.WaitServing(ctx, s.opts.StartTimeout)
}

func (s *Server) launch() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return fmt.Errorf("zookeeper %s: already running", s.Addr())
	}
	cfg, err := s.writeConfig()
	if err != nil {
		return err
	}
	logFile, err := os.OpenFile(s.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("zookeeper log: %w", err)
	}
	cmd := exec.Command(s.opts.Java,
		fmt.Sprintf("-Xmx%dm", s.opts.HeapMB), "-XX:+UseSerialGC",
		"-Dzookeeper.log.dir="+s.opts.DataDir,
		"-Dzookeeper.root.logger=INFO,CONSOLE",
		"-cp", s.classpath,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Die with the parent: a crashed test must not leave servers behind.
	// Own process group: a Ctrl-C in the terminal goes to the parent only,
	// which then shuts down in order and stops the server last.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("start zookeeper %s: %w", s.Addr(), err)
	}
	done := make(chan struct{})
	s.cmd, s.done = cmd, done
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(done)
	}()
	return nil
}

// WaitServing waits until the server answers "srvr" with a mode
// (standalone, leader or follower), which means it serves clients.
func (s *Server) WaitServing(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		mode, err := s.Mode()
		if err == nil && mode != "" {
			return nil
		}
		s.mu.Lock()
		done := s.done
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("zookeeper %s did not serve within %s (last error: %v; see %s)", s.Addr(), timeout, err, s.LogPath())
		case <-done:
			return fmt.Errorf("zookeeper %s exited during start-up; see %s", s.Addr(), s.LogPath())
		case <-tick.C:
		}
	}
}

// Mode returns the server's mode from the "srvr" four-letter word:
// "standalone", "leader" or "follower". An error means it does not serve.
func (s *Server) Mode() (string, error) {
	out, err := FourLetterWord(s.Addr(), "srvr", time.Second)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if mode, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return strings.TrimSpace(mode), nil
		}
	}
	return "", fmt.Errorf("zookeeper %s: not serving: %q", s.Addr(), strings.TrimSpace(out))
}

// FourLetterWord sends a ZooKeeper four-letter command and returns the reply.
func FourLetterWord(addr, word string, timeout time.Duration) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if _, err := conn.Write([]byte(word)); err != nil {
		return "", err
	}
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String(), nil
}

// Stop sends SIGTERM and waits for the process to exit.
func (s *Server) Stop() error { return s.signalAndWait(syscall.SIGTERM) }

// Kill sends SIGKILL (kill -9) and waits for the process to exit.
func (s *Server) Kill() error { return s.signalAndWait(syscall.SIGKILL) }

// Pause freezes the process with SIGSTOP; Resume continues it.
func (s *Server) Pause() error { return s.signal(syscall.SIGSTOP) }

// Resume continues a paused process with SIGCONT.
func (s *Server) Resume() error { return s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return fmt.Errorf("zookeeper %s: not running", s.Addr())
	}
	return s.cmd.Process.Signal(sig)
}

func (s *Server) signalAndWait(sig syscall.Signal) error {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGCONT) // a paused JVM cannot act on SIGTERM
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal zookeeper %s: %w", s.Addr(), err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
	s.mu.Lock()
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
	return nil
}

// Close kills the process and removes a temporary data directory.
func (s *Server) Close() error {
	err := s.Kill()
	if s.tempDir {
		if rmErr := os.RemoveAll(s.opts.DataDir); rmErr != nil && err == nil {
			err = rmErr
		}
	}
	return err
}
