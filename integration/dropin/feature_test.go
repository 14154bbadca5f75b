package dropin

import (
	"context"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// checkFeature reads /feature: kzadmind writes it at failover as Kafka's
// controller does at IBP 3.9 (enabled, JSON version 2, no features, since
// ZooKeeper-mode brokers support none and exit on one they do not
// support). It returns the znode's version, the feature epoch.
func (h *harness) checkFeature(t *testing.T, ctx context.Context) int32 {
	t.Helper()
	data, stat, err := h.obs.Get(ctx, znodes.FeaturePath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := znodes.DecodeFinalizedFeatures(data)
	if err != nil || f.Version != 2 || f.Status != znodes.FeatureEnabled || len(f.Features) != 0 {
		t.Fatalf("/feature = %s (%v), want enabled, version 2, no features", data, err)
	}
	return stat.Version
}

// logBrokerFeatures logs what a broker registers as its supported
// features, against which a controller checks /feature.
func (h *harness) logBrokerFeatures(t *testing.T, ctx context.Context, id int32) {
	t.Helper()
	data, _, err := h.obs.Get(ctx, znodes.BrokerIDPath(id))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := znodes.DecodeBrokerRegistration(id, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("broker %d registers features %v (registration v%d)", id, reg.Features, reg.Version)
}
