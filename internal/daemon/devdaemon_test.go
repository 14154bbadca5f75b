package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
)

// devConf is a dev-mode configuration (local ZooKeeper, 3 simulated
// brokers) with the given listeners on loopback and no HTTP endpoint.
func devConf(listeners ...string) config.Config {
	conf := config.Default()
	conf.Dev = true
	conf.NodeID = config.DevNodeID
	conf.HTTPListen = ""
	conf.Listeners = nil
	for _, name := range listeners {
		conf.Listeners = append(conf.Listeners, config.Listener{Name: name, Host: "127.0.0.1"})
	}
	return conf
}

// startDev validates conf, starts kzadmind with it (stopped when the test
// ends) and waits until it is the active controller of its 3 brokers.
func startDev(ctx context.Context, t *testing.T, conf config.Config) *Daemon {
	t.Helper()
	if err := conf.Validate(); err != nil {
		t.Fatalf("config refused: %v", err)
	}
	d, err := Start(ctx, conf, Options{}, zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := d.Stop(stopCtx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	waitBrokers(ctx, t, d, 3)
	return d
}
