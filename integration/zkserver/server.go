package zkserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kzadmin/kzadmin/integration/childproc"
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
	// JVMArgs are more options for the JVM (before the main class). The
	// server runs the serial collector, which is small and quick to start,
	// unless they choose a collector (-XX:+Use...GC).
	JVMArgs []string
	// Java is the java binary; empty means "java" from PATH.
	Java string
	// StartTimeout bounds how long Start waits for the server to serve.
	// Zero means 60s.
	StartTimeout time.Duration
	// TLS, when set, adds a secure client port (TLS through ZooKeeper's
	// Netty connection factory) next to the plain one.
	TLS *TLSOptions
	// SASL, when set, turns on ZooKeeper's SASL authentication provider,
	// with DIGEST-MD5 or Kerberos logins (a JAAS Server section).
	SASL *SASLOptions
}

// SASLOptions set up SASL logins. A client logged in as user has the
// identity sasl:<user>; clients need not log in (ZooKeeper's default).
type SASLOptions struct {
	// Users are the DIGEST-MD5 user names and their passwords.
	Users map[string]string
	// Kerberos, when set, takes GSSAPI (Kerberos) logins instead: a
	// ZooKeeper server is one or the other, as its Server section logs
	// it in to Kerberos or not.
	Kerberos *KerberosOptions
}

// KerberosOptions make the server a Kerberos service. A client logged in
// as principal p has the identity sasl:<p>, or sasl:<p's first component>
// with ShortNames.
type KerberosOptions struct {
	// Krb5Conf is the krb5.conf naming the realm's KDC.
	Krb5Conf string
	// Keytab holds Principal's key, e.g. zookeeper/localhost@EXAMPLE.COM
	// (clients ask for zookeeper/<the server's canonical host name>).
	Keytab, Principal string
	// ShortNames sets zookeeper.kerberos.removeHostFromPrincipal and
	// removeRealmFromPrincipal, as clusters whose brokers log in as
	// kafka/<their host> are run, so that they share sasl:kafka.
	ShortNames bool
}

// TLSOptions set up the secure client port. ZooKeeper authenticates a
// client certificate as the identity x509:<its subject DN>, and checks
// that it names the client's address (127.0.0.1 here).
type TLSOptions struct {
	// Port is the secure client port; 0 picks a free one.
	Port int
	// Keystore is a PEM file: the server's unencrypted key, then its
	// certificate chain. Truststore is a PEM file of the CA certificates
	// client certificates must chain to.
	Keystore, Truststore string
	// ClientAuth is ZooKeeper's ssl.clientAuth: need (the default), want
	// or none.
	ClientAuth string
}

// Server is one ZooKeeper server process.
type Server struct {
	opts      Options
	id        int      // myid in an ensemble, 0 when standalone
	peers     []string // server.N lines, empty when standalone
	work      childproc.WorkDir
	classpath string

	proc childproc.Slot
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
	if opts.ClientPort == 0 {
		ports, err := childproc.FreePorts(1)
		if err != nil {
			return nil, fmt.Errorf("zookeeper client port: %w", err)
		}
		opts.ClientPort = ports[0]
	}
	if opts.TLS != nil {
		t := *opts.TLS
		if t.Port == 0 {
			ports, err := childproc.FreePorts(1)
			if err != nil {
				return nil, fmt.Errorf("zookeeper secure client port: %w", err)
			}
			t.Port = ports[0]
		}
		if t.ClientAuth == "" {
			t.ClientAuth = "need"
		}
		opts.TLS = &t
	}
	work, err := childproc.NewWorkDir(opts.DataDir, "kzadmin-zk-")
	if err != nil {
		return nil, fmt.Errorf("zookeeper data dir: %w", err)
	}
	opts.DataDir = work.Path
	return &Server{opts: opts, id: id, peers: peers, work: work, classpath: cp}, nil
}

// Addr is the client address, "127.0.0.1:port".
func (s *Server) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.opts.ClientPort))
}

// SecureAddr is the secure (TLS) client address, "127.0.0.1:port", or ""
// without Options.TLS.
func (s *Server) SecureAddr() string {
	if s.opts.TLS == nil {
		return ""
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.opts.TLS.Port))
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
	if t := s.opts.TLS; t != nil {
		// Keys ZooKeeper does not know become zookeeper.<key> system
		// properties, which is where its X509Util reads ssl.* from.
		b.WriteString("serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n")
		fmt.Fprintf(&b, "secureClientPort=%d\nsecureClientPortAddress=127.0.0.1\n", t.Port)
		fmt.Fprintf(&b, "ssl.keyStore.location=%s\nssl.keyStore.type=PEM\n", t.Keystore)
		fmt.Fprintf(&b, "ssl.trustStore.location=%s\nssl.trustStore.type=PEM\n", t.Truststore)
		fmt.Fprintf(&b, "ssl.clientAuth=%s\n", t.ClientAuth)
	}
	if s.opts.SASL != nil {
		b.WriteString("authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n")
		var jaas strings.Builder
		if k := s.opts.SASL.Kerberos; k != nil {
			fmt.Fprintf(&jaas, "Server {\n  com.sun.security.auth.module.Krb5LoginModule required\n"+
				"  useKeyTab=true storeKey=true useTicketCache=false\n  keyTab=%q\n  principal=%q;\n};\n", k.Keytab, k.Principal)
		} else {
			jaas.WriteString("Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required")
			for _, user := range slices.Sorted(maps.Keys(s.opts.SASL.Users)) {
				fmt.Fprintf(&jaas, "\n  user_%s=%q", user, s.opts.SASL.Users[user])
			}
			jaas.WriteString(";\n};\n")
		}
		if err := os.WriteFile(s.jaasPath(), []byte(jaas.String()), 0o600); err != nil {
			return "", fmt.Errorf("zookeeper JAAS config: %w", err)
		}
	}
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
	if err := os.WriteFile(s.log4jPath(), []byte(log4jConfig), 0o644); err != nil {
		return "", fmt.Errorf("zookeeper log4j config: %w", err)
	}
	return cfg, nil
}

// log4jConfig logs at INFO to the console (server.log). Without a
// configuration log4j 1.2 leaves the root logger at DEBUG with no
// appender: nothing is written, but every debug call is still formatted,
// and ZooKeeper's request processor formats each create's ACLs twice,
// which took about two thirds of its thread's time in the create
// benchmarks.
const log4jConfig = `log4j.rootLogger=INFO, CONSOLE
log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender
log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout
log4j.appender.CONSOLE.layout.ConversionPattern=%d{ISO8601} %-5p [%t:%C{1}@%L] %m%n
`

// jaasPath is the JAAS file of Options.SASL.
func (s *Server) jaasPath() string { return filepath.Join(s.opts.DataDir, "jaas.conf") }

func (s *Server) log4jPath() string { return filepath.Join(s.opts.DataDir, "log4j.properties") }

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
	if s.proc.Running() {
		return fmt.Errorf("zookeeper %s: %w", s.Addr(), childproc.ErrRunning)
	}
	cfg, err := s.writeConfig()
	if err != nil {
		return err
	}
	_, err = s.proc.Start(childproc.Spec{
		Path: s.opts.Java,
		Args: slices.Concat([]string{
			fmt.Sprintf("-Xmx%dm", s.opts.HeapMB),
			// Pauses show in latencies: keep them where they can be
			// looked up (gc.log next to server.log).
			"-Xlog:gc:file=" + filepath.Join(s.opts.DataDir, "gc.log") + ":uptime",
		}, s.collector(), s.saslArgs(), s.opts.JVMArgs, []string{
			"-Dzookeeper.log.dir=" + s.opts.DataDir,
			"-Dlog4j.configuration=file:" + s.log4jPath(),
			"-cp", s.classpath,
			"org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg,
		}),
		LogPath: s.LogPath(),
		// A Ctrl-C in the terminal goes to the parent only, which then
		// shuts down in order and stops the server last.
		OwnGroup: true,
	})
	if err != nil {
		return fmt.Errorf("zookeeper %s: %w", s.Addr(), err)
	}
	return nil
}

// saslArgs point the JVM at the JAAS file of Options.SASL.
func (s *Server) saslArgs() []string {
	if s.opts.SASL == nil {
		return nil
	}
	args := []string{"-Djava.security.auth.login.config=" + s.jaasPath()}
	if k := s.opts.SASL.Kerberos; k != nil {
		args = append(args, "-Djava.security.krb5.conf="+k.Krb5Conf)
		if k.ShortNames {
			args = append(args, "-Dzookeeper.kerberos.removeHostFromPrincipal=true", "-Dzookeeper.kerberos.removeRealmFromPrincipal=true")
		}
	}
	return args
}

// collector is the serial collector's flag, unless JVMArgs choose one
// (the JVM refuses two).
func (s *Server) collector() []string {
	for _, a := range s.opts.JVMArgs {
		if strings.HasPrefix(a, "-XX:+Use") && strings.HasSuffix(a, "GC") {
			return nil
		}
	}
	return []string{"-XX:+UseSerialGC"}
}

// WaitServing waits until the server answers "srvr" with a mode
// (standalone, leader or follower), which means it serves clients.
func (s *Server) WaitServing(ctx context.Context, timeout time.Duration) error {
	// Gives up at once if the process dies, e.g. on a bad config.
	err := s.proc.Current().Until(ctx, timeout, 100*time.Millisecond, func() error {
		mode, err := s.Mode()
		if err == nil && mode == "" {
			err = errors.New("no mode")
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("zookeeper %s did not serve within %s: %w; see %s", s.Addr(), timeout, err, s.LogPath())
	}
	return nil
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

// stopGrace is how long Stop waits for a clean exit before it kills.
const stopGrace = 30 * time.Second

// Stop sends SIGTERM and waits for the process to exit; after 30s it kills
// it and returns an error.
// Pid is the server's process id, 0 when it is not running.
func (s *Server) Pid() int {
	if p := s.proc.Current(); p != nil {
		return p.Pid()
	}
	return 0
}

func (s *Server) Stop() error { return s.wrap(s.proc.Stop(syscall.SIGTERM, stopGrace)) }

// Kill sends SIGKILL (kill -9) and waits for the process to exit.
func (s *Server) Kill() error { return s.wrap(s.proc.Kill()) }

// Pause freezes the process with SIGSTOP; Resume continues it.
func (s *Server) Pause() error { return s.wrap(s.proc.Signal(syscall.SIGSTOP)) }

// Resume continues a paused process with SIGCONT.
func (s *Server) Resume() error { return s.wrap(s.proc.Signal(syscall.SIGCONT)) }

// wrap names the server in an error from its process.
func (s *Server) wrap(err error) error {
	if err != nil {
		return fmt.Errorf("zookeeper %s: %w; see %s", s.Addr(), err, s.LogPath())
	}
	return nil
}

// Close kills the process and removes a temporary data directory.
func (s *Server) Close() error {
	return errors.Join(s.Kill(), s.work.Remove())
}
