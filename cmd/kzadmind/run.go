package main

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/internal/daemon"
)

// run starts the daemon and blocks until ctx ends (SIGINT/SIGTERM) or the
// controller stops by itself, then shuts everything down.
func run(ctx context.Context, cfg config.Config, opts daemon.Options, log zerolog.Logger) error {
	d, err := daemon.Start(ctx, cfg, opts, log)
	if err != nil {
		return err
	}
	var runErr error
	select {
	case <-ctx.Done():
		log.Info().Msg("shutting down")
	case runErr = <-d.Done():
		log.Error().Err(runErr).Msg("controller stopped")
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.Stop(stopCtx); err != nil {
		log.Error().Err(err).Msg("shutdown")
	}
	log.Info().Msg("stopped")
	return runErr
}
