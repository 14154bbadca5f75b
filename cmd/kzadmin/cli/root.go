package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/cmd/kzadmin/wirebackend"
	"github.com/kzadmin/kzadmin/cmd/kzadmin/zkbackend"
	"github.com/kzadmin/kzadmin/config"
)

// Exit codes.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
)

// Options let tests (and a future main) swap parts.
type Options struct {
	// Open returns the backend for the global flags; nil opens the
	// ZooKeeper backend for --zookeeper and the Kafka-protocol backend for
	// --bootstrap-server.
	Open func(ctx context.Context, g Globals) (backend.Backend, error)
	// Terminal says whether stderr is a terminal (the progress bar then
	// redraws one line); nil detects it.
	Terminal func() bool
}

// Globals are the flags every command takes.
type Globals struct {
	ZooKeeper       string
	BootstrapServer string
	// CommandConfig is the client properties file for --bootstrap-server
	// (security.protocol, ssl.*, sasl.*), as Kafka's tools take it.
	CommandConfig string
	ConfigFile    string
	// ZKTLSConfigFile is a properties file of zookeeper.ssl.* keys for
	// --zookeeper, as Kafka's tools take it (--zk-tls-config-file); its
	// keys win over --config-file's.
	ZKTLSConfigFile string
	Output          string
	DryRun          bool
	Timeout         time.Duration
	// Config is the loaded --config-file (defaults without one).
	Config *config.Config
}

// app is one run of the command line.
type app struct {
	out, errOut io.Writer
	opts        Options
	g           Globals
}

// Run runs kzadmin with args and returns the exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	a := &app{out: stdout, errOut: stderr, opts: opts}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return a.exit(root.ExecuteContext(ctx))
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "kzadmin",
		Short: "Administer a ZooKeeper-mode Kafka cluster: topics, configs, reassignments, elections",
		Long: `kzadmin administers a ZooKeeper-mode Kafka cluster the way kafka-topics.sh,
kafka-configs.sh, kafka-acls.sh, kafka-reassign-partitions.sh,
kafka-leader-election.sh, kafka-log-dirs.sh and zookeeper-security-migration.sh
do, with kzadmin's validation and partition limits (max.partitions,
max.broker.partitions) checked before anything is written.

--zookeeper host:port[/chroot] reads and writes Kafka's znodes directly.
--dry-run prints exactly the znode writes a command would make, and makes none.

--bootstrap-server host:port uses the Kafka admin APIs of the cluster's
controller (kzadmind, or Kafka's own); --dry-run then asks the cluster to
validate without writing (validateOnly), where the API allows it.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	f := root.PersistentFlags()
	f.StringVar(&a.g.ZooKeeper, "zookeeper", "", "ZooKeeper connect string, host:port[,host:port][/chroot]")
	f.StringVar(&a.g.BootstrapServer, "bootstrap-server", "", "Kafka nodes to talk to, host:port[,host:port] (the admin wire APIs)")
	f.StringVar(&a.g.CommandConfig, "command-config", "", "client properties for --bootstrap-server, as Kafka's tools take them: "+
		"security.protocol, ssl.truststore.*, ssl.keystore.* (PEM, PKCS12, JKS), ssl.key.password, sasl.mechanism (GSSAPI, PLAIN, SCRAM-SHA-256/512), sasl.jaas.config, sasl.kerberos.service.name")
	f.StringVar(&a.g.ConfigFile, "config-file", "", "kzadmin properties file (max.partitions, max.broker.partitions, "+
		"num.partitions, default.replication.factor, zookeeper.connect; for --zookeeper: zookeeper.set.acl, kzadmin.zookeeper.digest, kzadmin.zookeeper.sasl.jaas.file, zookeeper.ssl.*)")
	f.StringVar(&a.g.ZKTLSConfigFile, "zk-tls-config-file", "", "TLS to ZooKeeper for --zookeeper, as Kafka's tools take it: "+
		"a properties file whose zookeeper.ssl.* keys are read, the rest ignored")
	f.StringVarP(&a.g.Output, "output", "o", "table", "output format: table or json")
	f.BoolVar(&a.g.DryRun, "dry-run", false, "validate and print the writes a command would make, without writing")
	f.DurationVar(&a.g.Timeout, "timeout", 30*time.Second, "time limit for talking to the cluster")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr{err} })
	root.AddCommand(a.topicsCommand(), a.configsCommand(), a.reassignCommand(), a.electCommand(), a.aclsCommand(),
		a.zkSecurityCommand(), a.logDirsCommand())
	return group(root)
}

// group makes a command that only holds subcommands refuse to run: an
// unknown or missing subcommand is a usage error, not help and exit 0.
func group(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown command %q for %q", args[0], cmd.CommandPath())
		}
		return usagef("%s needs a subcommand: %s", cmd.CommandPath(), subcommandNames(cmd))
	}
	return cmd
}

func subcommandNames(cmd *cobra.Command) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return strings.Join(names, ", ")
}

// usageErr marks a usage error (exit 2); failed marks a request that was
// refused or could not be made (exit 1). Cobra's own errors are usage
// errors.
type usageErr struct{ err error }

func (e usageErr) Error() string { return e.err.Error() }
func (e usageErr) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageErr{fmt.Errorf(format, args...)} }

type failed struct{ err error }

// reported marks a failure the output already shows (per-topic errors in
// describe): it is repeated on stderr but not as a second JSON document.
type reported struct{ err error }

func (e reported) Error() string { return e.err.Error() }
func (e reported) Unwrap() error { return e.err }

func (e failed) Error() string { return e.err.Error() }
func (e failed) Unwrap() error { return e.err }

// fail marks err as a request failure (nil stays nil). A backend's error
// that says it is a usage error (a flag the backend cannot honour, such as
// --dry-run over an API without validateOnly) stays one.
func fail(err error) error {
	if err == nil {
		return nil
	}
	var u usageErr
	if errors.As(err, &u) {
		return err
	}
	var bu interface{ UsageError() bool }
	if errors.As(err, &bu) && bu.UsageError() {
		return usageErr{err}
	}
	return failed{err}
}

// exit prints err and maps it to an exit code.
func (a *app) exit(err error) int {
	if err == nil {
		return ExitOK
	}
	var f failed
	if errors.As(err, &f) {
		a.printError(err)
		return ExitFailed
	}
	fmt.Fprintf(a.errOut, "Error: %v\nRun 'kzadmin --help' for usage.\n", err)
	return ExitUsage
}

// open loads the config file and opens the backend, bounded by --timeout.
func (a *app) open(ctx context.Context) (backend.Backend, error) {
	if a.g.Output != "table" && a.g.Output != "json" {
		return nil, usagef("--output must be table or json, not %q", a.g.Output)
	}
	cfg, err := loadConfig(a.g.ConfigFile)
	if err != nil {
		return nil, usageErr{err}
	}
	if a.g.ZKTLSConfigFile != "" {
		if a.g.BootstrapServer != "" {
			return nil, usagef("--zk-tls-config-file applies to --zookeeper (for --bootstrap-server, give --command-config)")
		}
		if cfg, err = overlayZKTLS(cfg, a.g.ZKTLSConfigFile); err != nil {
			return nil, usageErr{err}
		}
	}
	a.g.Config = cfg
	if a.g.ZooKeeper == "" && a.g.BootstrapServer == "" && !cfg.ZooKeeper.Connect.IsZero() {
		a.g.ZooKeeper = cfg.ZooKeeper.Connect.String()
	}
	switch {
	case a.g.BootstrapServer != "" && a.g.ZooKeeper != "":
		return nil, usagef("give --zookeeper or --bootstrap-server, not both")
	case a.g.ZooKeeper == "" && a.g.BootstrapServer == "":
		return nil, usagef("--zookeeper host:port[/chroot] or --bootstrap-server host:port is required")
	case a.g.CommandConfig != "" && a.g.BootstrapServer == "":
		return nil, usagef("--command-config applies to --bootstrap-server (for --zookeeper, give zookeeper.set.acl, kzadmin.zookeeper.digest, kzadmin.zookeeper.sasl.jaas.file and zookeeper.ssl.* in --config-file)")
	}
	ctx, cancel := context.WithTimeout(ctx, a.g.Timeout)
	defer cancel()
	if a.opts.Open != nil {
		b, err := a.opts.Open(ctx, a.g)
		return b, fail(err)
	}
	if a.g.BootstrapServer != "" {
		clientOpts, err := commandConfigOptions(a.g.CommandConfig)
		if err != nil {
			return nil, usageErr{err}
		}
		b, err := wirebackend.Open(ctx, wirebackend.Options{Bootstrap: a.g.BootstrapServer, ClientOptions: clientOpts})
		if err != nil {
			return nil, fail(err)
		}
		return b, nil
	}
	b, err := zkbackend.Open(ctx, zkbackend.Options{Connect: a.g.ZooKeeper, Config: cfg})
	if err != nil {
		return nil, fail(err)
	}
	return b, nil
}

// overlayZKTLS sets the zookeeper.ssl.* keys of --zk-tls-config-file on
// cfg; like Kafka's tools, it ignores the file's other keys.
func overlayZKTLS(cfg *config.Config, path string) (*config.Config, error) {
	props, err := config.ReadPropertiesFile(path)
	if err != nil {
		return nil, fmt.Errorf("--zk-tls-config-file: %w", err)
	}
	c, _, err := config.OverlayZooKeeperTLS(*cfg, props, path)
	if err != nil {
		return nil, fmt.Errorf("--zk-tls-config-file: %w", err)
	}
	return &c, nil
}

// loadConfig reads --config-file. The daemon's required keys (node.id,
// zookeeper.connect) are not required here.
func loadConfig(path string) (*config.Config, error) {
	if path == "" {
		c := config.Default()
		return &c, nil
	}
	loaded, err := config.Load(config.LoadOptions{File: path})
	if err == nil {
		return &loaded.Config, nil
	}
	var keep []error
	var multi interface{ Unwrap() []error }
	all := []error{err}
	if errors.As(err, &multi) {
		all = multi.Unwrap()
	}
	for _, e := range all {
		var ve *config.ValueError
		if errors.As(e, &ve) && (ve.Key == "node.id" || ve.Key == "zookeeper.connect") {
			continue
		}
		keep = append(keep, e)
	}
	if len(keep) > 0 {
		return nil, fmt.Errorf("--config-file %s: %w", path, errors.Join(keep...))
	}
	return &loaded.Config, nil
}
