package controller

import (
	"encoding/json"
	"errors"
	"maps"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestFeatureZnodeAtFailover checks /feature as the controller leaves it at
// failover, for each IBP and what ZooKeeper held before (reference
// znodes.md §3.13): IBP 2.7+ enables it with no features (ZooKeeper-mode
// brokers support none, and exit on one they do not support), keeping the
// features of an enabled node and rewriting it only for a JSON version
// change (2 from IBP 3.3, else 1); older IBPs disable it with no features.
func TestFeatureZnodeAtFailover(t *testing.T) {
	const (
		enabledV2  = `{"features":{},"version":2,"status":1}`
		enabledV1  = `{"features":{},"version":1,"status":1}`
		disabledV1 = `{"features":{},"version":1,"status":0}`
		disabledV2 = `{"features":{},"version":2,"status":0}`
		// A node finalized by someone else; only its version may change.
		withFeatureV1 = `{"features":{"x":{"min_version_level":1,"max_version_level":2}},"version":1,"status":1}`
		withFeatureV2 = `{"features":{"x":{"max_version_level":2}},"version":2,"status":1}`
	)
	cases := []struct {
		name, ibp, before, after string
		rewritten                bool
	}{
		{"absent 3.9", "3.9", "", enabledV2, true},
		{"absent 3.2", "3.2", "", enabledV1, true},
		{"absent 2.7", "2.7", "", enabledV1, true},
		{"absent 2.6", "2.6", "", disabledV1, true},
		{"enabled kept", "3.9", enabledV2, enabledV2, false},
		{"disabled enabled", "3.9", disabledV1, enabledV2, true},
		{"version upgraded", "3.9", enabledV1, enabledV2, true},
		{"version downgraded", "3.1", enabledV2, enabledV1, true},
		{"features kept across a version change", "3.9", withFeatureV1, withFeatureV2, true},
		{"enabled disabled", "2.6", enabledV2, disabledV1, true},
		{"disabled version fixed", "2.6", disabledV2, disabledV1, true},
		{"disabled kept", "2.6", disabledV1, disabledV1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zk := connectZK(t, testChroot(t), "", 0)
			ctx := testCtx(t)
			if tc.before != "" {
				if _, err := zk.Create(ctx, znodes.FeaturePath, []byte(tc.before), zkadmin.Persistent); err != nil {
					t.Fatal(err)
				}
			}
			conf := testConfig(100)
			ibp, err := config.ParseIBP(tc.ibp)
			if err != nil {
				t.Fatal(err)
			}
			conf.InterBrokerProtocolVersion = ibp
			c, err := New(Config{Conf: conf, ZK: zk, Logger: zerolog.New(zerolog.NewTestWriter(t))})
			if err != nil {
				t.Fatal(err)
			}
			c.setupFeatures(ctx)
			data, stat, err := zk.Get(ctx, znodes.FeaturePath)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, data, tc.after) {
				t.Fatalf("/feature = %s, want %s", data, tc.after)
			}
			wantVersion := int32(0)
			if tc.before != "" && tc.rewritten {
				wantVersion = 1
			}
			if stat.Version != wantVersion {
				t.Fatalf("/feature zkVersion %d, want %d (rewritten=%v)", stat.Version, wantVersion, tc.rewritten)
			}
		})
	}
}

// sameJSON compares two JSON objects regardless of key order.
func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w map[string]any
	if err := errors.Join(json.Unmarshal(got, &g), json.Unmarshal([]byte(want), &w)); err != nil {
		t.Fatal(err)
	}
	return maps.EqualFunc(g, w, func(a, b any) bool {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return string(ja) == string(jb)
	})
}
