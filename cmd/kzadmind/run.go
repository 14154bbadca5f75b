package main

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
)

type runOptions struct {
	// DevDir keeps the dev-mode ZooKeeper's data across runs when set.
	DevDir string
}

// run starts everything the configuration asks for and blocks until ctx
// ends, then stops it all in reverse order.
func run(ctx context.Context, cfg config.Config, opts runOptions, log zerolog.Logger) error {
	if cfg.Dev && len(cfg.ZooKeeper.Connect.Servers) == 0 {
		zk, err := startDevZooKeeper(ctx, opts.DevDir, log)
		if err != nil {
			return err
		}
		defer func() {
			if err := stopDevZooKeeper(zk, opts.DevDir); err != nil {
				log.Error().Err(err).Msg("stop dev ZooKeeper")
			}
			log.Info().Msg("dev ZooKeeper stopped")
		}()
		cfg.ZooKeeper.Connect = config.ZKConnect{Servers: []string{zk.Addr()}}
	}

	client, err := zkadmin.Connect(ctx, zkadmin.Options{
		Servers:        cfg.ZooKeeper.Connect.Servers,
		Chroot:         cfg.ZooKeeper.Connect.Chroot,
		SessionTimeout: cfg.ZooKeeper.SessionTimeout,
		Logger:         log.With().Str("component", "zookeeper").Logger(),
	})
	if err != nil {
		return fmt.Errorf("connect to ZooKeeper %v: %w", cfg.ZooKeeper.Connect.Servers, err)
	}
	defer client.Close()

	// A Kafka broker creates these at start-up; the controller may start
	// before any broker, so it does the same.
	if err := client.EnsureTopLevelPaths(ctx); err != nil {
		return err
	}
	clusterID, err := client.GetOrCreateClusterID(ctx, cfg.ClusterID)
	if err != nil {
		return err
	}
	if cfg.ClusterID != "" && clusterID != cfg.ClusterID {
		return fmt.Errorf("cluster.id=%q but ZooKeeper holds cluster id %q", cfg.ClusterID, clusterID)
	}
	log.Info().
		Strs("zookeeper", cfg.ZooKeeper.Connect.Servers).
		Str("chroot", cfg.ZooKeeper.Connect.Chroot).
		Str("cluster_id", clusterID).
		Int32("node_id", cfg.NodeID).
		Msg("kzadmind ready")

	<-ctx.Done()
	log.Info().Msg("shutting down")
	return nil
}

func startDevZooKeeper(ctx context.Context, dir string, log zerolog.Logger) (*zkserver.Server, error) {
	start := time.Now()
	zk, err := zkserver.Start(ctx, zkserver.Options{DataDir: dir})
	if err != nil {
		return nil, fmt.Errorf("dev mode: start local ZooKeeper: %w", err)
	}
	log.Info().Str("addr", zk.Addr()).Str("data_dir", zk.DataDir()).
		Str("log", zk.LogPath()).Dur("took", time.Since(start)).
		Msg("dev ZooKeeper listening")
	return zk, nil
}

// stopDevZooKeeper stops the server; a data directory the user chose is
// kept, a temporary one is removed.
func stopDevZooKeeper(zk *zkserver.Server, dir string) error {
	if dir != "" {
		return zk.Stop()
	}
	return zk.Close()
}
