package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/kzadmin/kzadmin/integration/zkserver"
)

// Broker is one Kafka broker process in ZooKeeper mode.
type Broker struct {
	opts    BrokerOptions
	libs    string
	tempDir bool

	mu        sync.Mutex
	cmd       *exec.Cmd
	done      chan struct{} // closed when the current process has exited
	owner     int64         // session that owned the last registration seen
	startTook time.Duration // launch to ready, for the last start
}

// StartBroker launches a broker and waits until it has registered in
// ZooKeeper (/brokers/ids/<id>) and answers Kafka requests on its port. It
// does not wait for a controller: a broker serves requests before any
// controller has sent it metadata.
func StartBroker(ctx context.Context, opts BrokerOptions) (*Broker, error) {
	b, err := newBroker(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := b.Restart(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// newBroker resolves the options (jars, directories, port) without
// starting anything.
func newBroker(ctx context.Context, opts BrokerOptions) (*Broker, error) {
	if opts.ZooKeeper == "" {
		return nil, fmt.Errorf("broker %d: no ZooKeeper connect string", opts.ID)
	}
	libs, err := Libs(ctx)
	if err != nil {
		return nil, err
	}
	b := &Broker{opts: opts.withDefaults(), libs: libs}
	if b.opts.DataDir == "" {
		dir, err := os.MkdirTemp("", fmt.Sprintf("kzadmin-kafka-%d-", opts.ID))
		if err != nil {
			return nil, fmt.Errorf("broker %d data dir: %w", opts.ID, err)
		}
		b.opts.DataDir, b.tempDir = dir, true
	}
	if b.opts.LogDir == "" {
		b.opts.LogDir = filepath.Join(b.opts.DataDir, "kafka-logs")
	}
	if b.opts.Port == 0 {
		ports, err := zkserver.FreePorts(1)
		if err != nil {
			return nil, err
		}
		b.opts.Port = ports[0]
	}
	return b, nil
}

// Addr is the broker's PLAINTEXT address, "127.0.0.1:port".
func (b *Broker) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(b.opts.Port))
}

// ID is the broker's broker.id.
func (b *Broker) ID() int32 { return b.opts.ID }

// Rack is the broker's broker.rack, empty when it has none.
func (b *Broker) Rack() string { return b.opts.Rack }

// DataDir holds the broker's config, output and (by default) data.
func (b *Broker) DataDir() string { return b.opts.DataDir }

// LogDir is the broker's log.dirs, where its partitions live.
func (b *Broker) LogDir() string { return b.opts.LogDir }

// LogPath is the file the broker's log and JVM output go to.
func (b *Broker) LogPath() string { return filepath.Join(b.opts.DataDir, "server.log") }

// StartDuration is how long the last start or restart took, from launching
// the JVM until the broker had registered and answered a request (not
// counting the wait for a killed predecessor's registration to expire).
func (b *Broker) StartDuration() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.startTook
}

// Running reports whether the broker process is alive (it may be paused).
func (b *Broker) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cmd != nil
}

// Restart starts the process again (after Stop or Kill) with the same id,
// port and log directory, and waits until it has registered anew and
// answers requests. After a Kill it first waits for the dead process's
// registration to expire (up to the session timeout), as Kafka will not
// start while it exists. The whole restart is bounded by StartTimeout. On a
// running broker it is an error.
func (b *Broker) Restart(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, b.opts.StartTimeout)
	defer cancel()
	b.mu.Lock()
	prevOwner, running := b.owner, b.cmd != nil
	b.mu.Unlock()
	if running {
		return fmt.Errorf("broker %d: already running", b.opts.ID)
	}
	if prevOwner != 0 {
		if err := b.waitReleased(ctx, prevOwner); err != nil {
			return err
		}
	}
	started := time.Now()
	done, err := b.launch()
	if err != nil {
		return err
	}
	owner, err := b.waitReady(ctx, done, prevOwner)
	if err != nil {
		_ = b.Kill() // a half-started JVM would only burn CPU
		return err
	}
	b.mu.Lock()
	b.owner, b.startTook = owner, time.Since(started)
	b.mu.Unlock()
	return nil
}

// launch writes the config and starts the JVM without waiting. It returns
// the channel closed when this process exits.
func (b *Broker) launch() (<-chan struct{}, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd != nil {
		return nil, fmt.Errorf("broker %d: already running", b.opts.ID)
	}
	serverProps, log4jProps, err := writeBrokerConfig(b.opts)
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(b.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("broker %d log: %w", b.opts.ID, err)
	}
	args := append(jvmArgs(b.opts.HeapMB, log4jProps), b.opts.JVMFlags...)
	args = append(args, "-Dkafka.logs.dir="+b.opts.DataDir,
		"-cp", filepath.Join(b.libs, "*"), "kafka.Kafka", serverProps)
	cmd := exec.Command(b.opts.Java, args...)
	cmd.Dir = b.opts.DataDir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Die with the test: a crashed or killed test must not leave brokers.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start broker %d: %w", b.opts.ID, err)
	}
	done := make(chan struct{})
	b.cmd, b.done = cmd, done
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(done)
	}()
	return done, nil
}

// jvmArgs are the JVM flags shared by brokers and tools: a small heap, the
// serial collector (no GC threads competing for two cores), and the client
// compiler only, which starts a JVM noticeably faster.
func jvmArgs(heapMB int, log4jProps string) []string {
	return []string{
		fmt.Sprintf("-Xmx%dm", heapMB), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.awt.headless=true",
		"-Dlog4j.configuration=file:" + log4jProps,
	}
}

// Stop sends SIGTERM, which makes the broker shut down in a controlled way
// (it asks the controller to move its leaderships first), and waits for the
// process to exit. It returns how long the shutdown took. After StopTimeout
// the process is killed and an error returned.
func (b *Broker) Stop() (time.Duration, error) {
	return b.signalAndWait(syscall.SIGTERM, b.opts.StopTimeout)
}

// Kill sends SIGKILL (kill -9) and waits for the process to exit.
func (b *Broker) Kill() error {
	_, err := b.signalAndWait(syscall.SIGKILL, 30*time.Second)
	return err
}

// Pause freezes the process with SIGSTOP: its ZooKeeper session and
// connections stay open but nothing answers.
func (b *Broker) Pause() error { return b.signal(syscall.SIGSTOP) }

// Resume continues a paused process with SIGCONT.
func (b *Broker) Resume() error { return b.signal(syscall.SIGCONT) }

func (b *Broker) signal(sig syscall.Signal) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return fmt.Errorf("broker %d: not running", b.opts.ID)
	}
	if err := b.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal broker %d: %w", b.opts.ID, err)
	}
	return nil
}

func (b *Broker) signalAndWait(sig syscall.Signal, timeout time.Duration) (time.Duration, error) {
	b.mu.Lock()
	cmd, done := b.cmd, b.done
	b.mu.Unlock()
	if cmd == nil {
		return 0, nil
	}
	started := time.Now()
	_ = cmd.Process.Signal(syscall.SIGCONT) // a paused JVM cannot act on SIGTERM
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return 0, fmt.Errorf("signal broker %d: %w", b.opts.ID, err)
	}
	var err error
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		_ = cmd.Process.Kill()
		<-done
		err = fmt.Errorf("broker %d did not exit within %s of %s; killed it (see %s)", b.opts.ID, timeout, sig, b.LogPath())
	}
	took := time.Since(started)
	b.mu.Lock()
	b.cmd, b.done = nil, nil
	b.mu.Unlock()
	return took, err
}

// Close kills the process and removes a temporary data directory.
func (b *Broker) Close() error {
	err := b.Kill()
	if b.tempDir {
		if rmErr := os.RemoveAll(b.opts.DataDir); rmErr != nil && err == nil {
			err = fmt.Errorf("broker %d: remove %s: %w", b.opts.ID, b.opts.DataDir, rmErr)
		}
	}
	return err
}
