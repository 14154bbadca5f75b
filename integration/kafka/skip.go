package kafka

import (
	"os"
	"testing"
)

// SkipHeavyEnv, set to 1, skips the tests that start real brokers. CI never
// sets it: it exists for quick local runs only.
const SkipHeavyEnv = "KZADMIN_SKIP_HEAVY"

// SkipIfHeavyDisabled skips the calling test when KZADMIN_SKIP_HEAVY=1.
// Call it first in every test that starts brokers or ZooKeeper ensembles.
func SkipIfHeavyDisabled(tb testing.TB) {
	tb.Helper()
	if os.Getenv(SkipHeavyEnv) == "1" {
		tb.Skipf("%s=1: skipping a test that starts real Kafka brokers", SkipHeavyEnv)
	}
}
