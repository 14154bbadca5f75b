// Command fetchjars fills the per-machine cache of Kafka jars that the
// integration tests use (see kafka.Libs) and prints its directory. CI runs
// it up front so no test pays for the download.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/kzadmin/kzadmin/integration/kafka"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := kafka.Libs(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fetchjars:", err)
		os.Exit(1)
	}
	fmt.Println(dir)
}
