// Command kzadmind is kzadmin's daemon: a ZooKeeper-mode Kafka controller
// that wins /controller, fences its writes with the controller epoch and
// serves the Kafka admin wire APIs. With --dev it starts its own local
// ZooKeeper so a client can use it at once.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/internal/logging"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCommand().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "kzadmind:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	var configFile, devDir string
	cmd := &cobra.Command{
		Use:   "kzadmind",
		Short: "ZooKeeper-mode Kafka controller and admin API server",
		Long: `kzadmind is a drop-in ZooKeeper-mode Kafka controller.

Settings come from a Kafka-style .properties file (--config), then KZADMIN_*
environment variables (zookeeper.connect -> KZADMIN_ZOOKEEPER_CONNECT), then
flags named as the keys (--zookeeper.connect); later sources win.

--dev starts a local ZooKeeper (from the Debian zookeeper package's jars) and
needs no other setting.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			loaded, err := config.Load(config.LoadOptions{
				File:        configFile,
				Env:         os.Environ(),
				Flags:       cmd.Flags(),
				FlagAliases: map[string]string{"dev": "kzadmin.dev"},
			})
			if err != nil {
				return err
			}
			cfg := loaded.Config
			log, err := logging.New(os.Stderr, cfg.LogFormat, cfg.LogLevel)
			if err != nil {
				return err
			}
			for _, k := range loaded.UnknownKeys {
				log.Warn().Str("key", k).Str("file", configFile).Msg("ignoring unknown config key")
			}
			for _, k := range loaded.UnknownEnv {
				log.Warn().Str("env", k).Msg("ignoring unknown KZADMIN_ variable")
			}
			err = run(cmd.Context(), cfg, daemon.Options{DevDir: devDir, ConfigSources: loaded.Sources}, log)
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "Kafka-style .properties file")
	cmd.Flags().Bool("dev", false, "dev mode: start a local ZooKeeper and everything a client needs (same as kzadmin.dev=true)")
	cmd.Flags().StringVar(&devDir, "dev-dir", "", "dev mode: where the local ZooKeeper keeps its data (default: a new temporary directory, removed at exit)")
	config.AddFlags(cmd.Flags())
	return cmd
}
