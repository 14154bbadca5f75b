package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
)

// TestMetadataGivesControllerARack: in dev mode every simulated broker has
// a rack, so kzadmind's own Metadata lists it in the rack of the lowest
// broker id, as its UpdateMetadata does (a broker auto-creating a topic
// refuses a mix of racked and rackless nodes).
func TestMetadataGivesControllerARack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	conf := config.Default()
	conf.Dev = true
	conf.NodeID = config.DevNodeID
	conf.HTTPListen = ""
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1"}}
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
	racks := map[int32]string{}
	lowest := int32(-1)
	for _, b := range metadataFrom(ctx, t, d.ListenerAddr("PLAINTEXT")).Brokers {
		if b.Rack != nil {
			racks[b.NodeID] = *b.Rack
		}
		if b.NodeID != conf.NodeID && (lowest < 0 || b.NodeID < lowest) {
			lowest = b.NodeID
		}
	}
	if got, want := racks[conf.NodeID], racks[lowest]; got == "" || got != want {
		t.Fatalf("controller %d in rack %q, want broker %d's %q (racks %v)", conf.NodeID, got, lowest, want, racks)
	}
}
