package differential

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/zkserver"
)

// verboseEnv, set to 1, logs both runs' normalized answers to every
// step, not only their differences.
const verboseEnv = "KZADMIN_DIFF_VERBOSE"

// testTimeout bounds the whole differential run: two broker sets started
// one after the other, and every case against each.
const testTimeout = 8 * time.Minute

// TestDifferential sends allCases to Kafka's own ZooKeeper-mode controller
// and then to kzadmind, each over three real Kafka 3.9 brokers, and
// compares the normalized answers field by field. It fails on any
// difference the allowlist does not explain.
func TestDifferential(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	zks, err := zkserver.Start(ctx, zkserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zks.Close() })
	cases := allCases()
	runs := []struct {
		name  string
		start func(*testing.T, context.Context, string) (*target, Run)
	}{{"kafka-controller", startKafkaRun}, {"kzadmind", startKzadmindRun}}
	results := make([]map[string]outcome, len(runs))
	for i, r := range runs {
		// One broker set at a time: each subtest's brokers stop when it
		// ends, before the next starts (two cores, three JVMs at most).
		t.Run(r.name, func(t *testing.T) {
			tg, run := r.start(t, ctx, zks.Addr())
			stepsBegan := time.Now()
			results[i] = runCases(ctx, tg, run, cases, t.Logf)
			t.Logf("%d steps in %s", len(results[i]), time.Since(stepsBegan).Round(time.Millisecond))
		})
		if results[i] == nil {
			t.Fatalf("the %s run did not complete", r.name)
		}
	}
	compare(t, cases, results[0], results[1])
	t.Logf("whole run: %s", time.Since(began).Round(time.Millisecond))
}

// compare logs every difference as "case/step: path: kafka=<v>
// kzadmind=<v>", marks the allowed ones with the allowlist's reason, and
// fails on the others.
func compare(t *testing.T, cases []testCase, kafkaOut, kzOut map[string]outcome) {
	t.Helper()
	used := map[string]bool{}
	var unexplained, allowedCount int
	for _, c := range cases {
		for _, s := range c.steps {
			key := c.name + "/" + s.name
			if s.cleanup != "" {
				continue
			}
			a, b := kafkaOut[key], kzOut[key]
			if a.err != nil && b.err != nil {
				t.Logf("%s: neither run answered: kafka: %v; kzadmind: %v", key, a.err, b.err)
			}
			if os.Getenv(verboseEnv) == "1" {
				t.Logf("%s:\n\tkafka:    %s\n\tkzadmind: %s", key, answerText(a), answerText(b))
			}
			for _, d := range diffOutcomes(a, b) {
				line := key + ": " + d.String()
				if pattern, reason := allowed(key + ": " + d.Path); pattern != "" {
					used[pattern] = true
					allowedCount++
					t.Logf("allowed: %s\n\t(%s)", line, reason)
					continue
				}
				unexplained++
				t.Logf("DIFF: %s", line)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(allowlist)) {
		if !used[p] {
			t.Logf("allowlist entry matched nothing (stale?): %q", p)
		}
	}
	t.Logf("%d differences: %d allowed, %d unexplained", allowedCount+unexplained, allowedCount, unexplained)
	if unexplained > 0 {
		t.Errorf("%d differences the allowlist does not explain (lines starting DIFF above)", unexplained)
	}
}

// diffOutcomes compares two outcomes of one step. A request that got no
// answer (a closed connection, a timeout) differs from one that did; two
// failures are not compared further, since their errors name addresses.
func diffOutcomes(a, b outcome) []Difference {
	switch {
	case a.err != nil && b.err != nil:
		return nil
	case a.err != nil || b.err != nil:
		return []Difference{{Path: "<answer>", Kafka: answerOf(a), Kzadmind: answerOf(b)}}
	}
	return Diff(a.resp, b.resp)
}

// answerText is an outcome in full, for verbose runs.
func answerText(o outcome) string {
	if o.err != nil {
		return fmt.Sprintf("<no answer: %v>", o.err)
	}
	return Format(o.resp)
}

func answerOf(o outcome) string {
	if o.err != nil {
		return fmt.Sprintf("<no answer: %v>", o.err)
	}
	return "<answered>"
}

// allowed returns the allowlist pattern that matches "case/step: path"
// and its reason; "" when none does.
func allowed(diffPath string) (pattern, reason string) {
	for _, p := range slices.Sorted(maps.Keys(allowlist)) {
		if Match(p, diffPath) {
			return p, allowlist[p]
		}
	}
	return "", ""
}
