package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/kzadmin/kzadmin/integration/childproc"
)

// Broker is one Kafka broker process in ZooKeeper mode.
type Broker struct {
	opts BrokerOptions
	libs string
	work childproc.WorkDir
	proc childproc.Slot

	mu        sync.Mutex
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
	opts = opts.withDefaults()
	if opts.Port == 0 {
		ports, err := childproc.FreePorts(1)
		if err != nil {
			return nil, fmt.Errorf("broker %d port: %w", opts.ID, err)
		}
		opts.Port = ports[0]
	}
	work, err := childproc.NewWorkDir(opts.DataDir, fmt.Sprintf("kzadmin-kafka-%d-", opts.ID))
	if err != nil {
		return nil, fmt.Errorf("broker %d data dir: %w", opts.ID, err)
	}
	opts.DataDir = work.Path
	if opts.LogDir == "" {
		opts.LogDir = filepath.Join(opts.DataDir, "kafka-logs")
	}
	return &Broker{opts: opts, libs: libs, work: work}, nil
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

// LogDir is the broker's first log directory (its only one unless
// BrokerOptions.ExtraLogDirs), where its partitions live.
func (b *Broker) LogDir() string { return b.opts.LogDir }

// LogDirs are all of the broker's log directories, its log.dirs.
func (b *Broker) LogDirs() []string { return b.opts.logDirs() }

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
func (b *Broker) Running() bool { return b.proc.Running() }

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
	prevOwner := b.owner
	b.mu.Unlock()
	if b.proc.Running() {
		return fmt.Errorf("broker %d: %w", b.opts.ID, childproc.ErrRunning)
	}
	if prevOwner != 0 {
		if err := b.waitReleased(ctx, prevOwner); err != nil {
			return err
		}
	}
	started := time.Now()
	proc, err := b.launch()
	if err != nil {
		return err
	}
	owner, err := b.waitReady(ctx, proc, prevOwner)
	if err != nil {
		_ = b.Kill() // a half-started JVM would only burn CPU
		return err
	}
	b.mu.Lock()
	b.owner, b.startTook = owner, time.Since(started)
	b.mu.Unlock()
	return nil
}

// launch writes the config and starts the JVM without waiting.
func (b *Broker) launch() (*childproc.Process, error) {
	serverProps, log4jProps, err := writeBrokerConfig(b.opts)
	if err != nil {
		return nil, err
	}
	jvmTmp := filepath.Join(b.opts.DataDir, "jvm-tmp")
	if err := os.MkdirAll(jvmTmp, 0o700); err != nil {
		return nil, fmt.Errorf("broker %d: %w", b.opts.ID, err)
	}
	args := append(jvmArgs(b.opts.HeapMB, log4jProps, jvmTmp), b.opts.JVMFlags...)
	args = append(args, "-Dkafka.logs.dir="+b.opts.DataDir,
		"-cp", filepath.Join(b.libs, "*"), "kafka.Kafka", serverProps)
	proc, err := b.proc.Start(childproc.Spec{
		Path: b.opts.Java, Args: args, Dir: b.opts.DataDir, LogPath: b.LogPath(),
	})
	if err != nil {
		return nil, fmt.Errorf("broker %d: %w", b.opts.ID, err)
	}
	return proc, nil
}

// jvmArgs are the JVM flags shared by brokers and tools: a small heap, the
// serial collector (no GC threads competing for two cores), and the client
// compiler only, which starts a JVM noticeably faster. tmpDir is the JVM's
// java.io.tmpdir, inside the directory the harness removes: Kafka's
// compression libraries (snappy-java, zstd-jni) unpack a native library
// there at every start, and a JVM that is killed, as tests kill brokers,
// never deletes it; in the shared /tmp they piled up at about 280 KB a JVM.
func jvmArgs(heapMB int, log4jProps, tmpDir string) []string {
	return []string{
		fmt.Sprintf("-Xmx%dm", heapMB), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.awt.headless=true",
		"-Dlog4j.configuration=file:" + log4jProps,
		"-Djava.io.tmpdir=" + tmpDir,
	}
}

// Stop sends SIGTERM, which makes the broker shut down in a controlled way
// (it asks the controller to move its leaderships first), and waits for the
// process to exit. It returns how long the shutdown took. After StopTimeout
// the process is killed and an error returned.
func (b *Broker) Stop() (time.Duration, error) {
	started := time.Now()
	err := b.proc.Stop(syscall.SIGTERM, b.opts.StopTimeout)
	return time.Since(started), b.wrap(err)
}

// Kill sends SIGKILL (kill -9) and waits for the process to exit.
func (b *Broker) Kill() error { return b.wrap(b.proc.Kill()) }

// Pause freezes the process with SIGSTOP: its ZooKeeper session and
// connections stay open but nothing answers.
func (b *Broker) Pause() error { return b.wrap(b.proc.Signal(syscall.SIGSTOP)) }

// Resume continues a paused process with SIGCONT.
func (b *Broker) Resume() error { return b.wrap(b.proc.Signal(syscall.SIGCONT)) }

// wrap names the broker in an error from its process.
func (b *Broker) wrap(err error) error {
	if err != nil {
		return fmt.Errorf("broker %d: %w (see %s)", b.opts.ID, err, b.LogPath())
	}
	return nil
}

// Close kills the process and removes a temporary data directory.
func (b *Broker) Close() error {
	return errors.Join(b.Kill(), b.work.Remove())
}
