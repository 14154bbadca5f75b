package controller

import "testing"

// TestResolveTopicSettingsParsesAsKafka: a topic's min.insync.replicas
// and unclean.leader.election.enable overrides are read as Kafka's
// brokers read them (String.trim, Java's integer parsing, any case of
// true); a value that does not parse, or a min ISR under 1, leaves the
// cluster's.
func TestResolveTopicSettingsParsesAsKafka(t *testing.T) {
	conf := testConfig(1)
	conf.MinInsyncReplicas, conf.UncleanLeaderElectionEnable = 1, false
	for _, tc := range []struct {
		minISR, unclean string
		wantMin         int32
		wantUnclean     bool
	}{
		{" 2 ", "TRUE", 2, true},
		{"\u0662", "\ttrue\n", 2, true},
		{"+3", "false", 3, false},
		{"\u00a02", "\u00a0true", 1, false}, // a no-break space is no blank to String.trim
		{"0", "yes", 1, false},
		{"2147483648", "", 1, false},
	} {
		got := resolveTopicSettings(conf, map[string]string{MinInsyncReplicasKey: tc.minISR, UncleanLeaderElectionKey: tc.unclean})
		if got.minISR != tc.wantMin || got.unclean != tc.wantUnclean {
			t.Errorf("min.insync.replicas=%q unclean=%q: min ISR %d unclean %v, want %d %v",
				tc.minISR, tc.unclean, got.minISR, got.unclean, tc.wantMin, tc.wantUnclean)
		}
	}
}
