package daemon

import (
	"context"
	"testing"
	"time"
)

// TestMetadataGivesControllerARack: in dev mode every simulated broker has
// a rack, so kzadmind's own Metadata lists it in the rack of the lowest
// broker id, as its UpdateMetadata does (a broker auto-creating a topic
// refuses a mix of racked and rackless nodes).
func TestMetadataGivesControllerARack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	conf := devConf("PLAINTEXT")
	d := startDev(ctx, t, conf)
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
