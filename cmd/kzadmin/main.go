// Command kzadmin administers a ZooKeeper-mode Kafka cluster: topics,
// configs, reassignments and leader elections, in the manner of Kafka's
// own tools. See package cli for the commands and README.md for examples.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{})
	stop()
	os.Exit(code)
}
