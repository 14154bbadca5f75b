package brokerchan

import (
	"errors"
	"testing"
)

// TestIBPRequestVersions lists every IBP a ZooKeeper-mode broker accepts,
// oldest first, with the LeaderAndIsr, UpdateMetadata and StopReplica
// versions Kafka's controller sends at it (reference §5.3). It also pins
// the order and the names of the table.
func TestIBPRequestVersions(t *testing.T) {
	rows := []struct {
		name         string
		lai, um, stp int16
	}{
		{"0.8.0", 0, 0, 0}, {"0.8.1", 0, 0, 0}, {"0.8.2", 0, 0, 0},
		{"0.9.0", 0, 1, 0},
		{"0.10.0-IV0", 0, 1, 0}, {"0.10.0-IV1", 0, 2, 0},
		{"0.10.1-IV0", 0, 2, 0}, {"0.10.1-IV1", 0, 2, 0}, {"0.10.1-IV2", 0, 2, 0},
		{"0.10.2-IV0", 0, 3, 0},
		{"0.11.0-IV0", 0, 3, 0}, {"0.11.0-IV1", 0, 3, 0}, {"0.11.0-IV2", 0, 3, 0},
		{"1.0-IV0", 1, 4, 0}, {"1.1-IV0", 1, 4, 0},
		{"2.0-IV0", 1, 4, 0}, {"2.0-IV1", 1, 4, 0},
		{"2.1-IV0", 1, 4, 0}, {"2.1-IV1", 1, 4, 0}, {"2.1-IV2", 1, 4, 0},
		{"2.2-IV0", 2, 5, 1}, {"2.2-IV1", 2, 5, 1},
		{"2.3-IV0", 2, 5, 1}, {"2.3-IV1", 2, 5, 1},
		{"2.4-IV0", 3, 5, 1}, {"2.4-IV1", 4, 6, 2},
		{"2.5-IV0", 4, 6, 2},
		{"2.6-IV0", 4, 6, 3},
		{"2.7-IV0", 4, 6, 3}, {"2.7-IV1", 4, 6, 3}, {"2.7-IV2", 4, 6, 3},
		{"2.8-IV0", 4, 6, 3}, {"2.8-IV1", 5, 7, 3},
		{"3.0-IV0", 5, 7, 3}, {"3.0-IV1", 5, 7, 3},
		{"3.1-IV0", 5, 7, 3},
		{"3.2-IV0", 6, 7, 3},
		{"3.3-IV0", 6, 7, 3}, {"3.3-IV1", 6, 7, 3}, {"3.3-IV2", 6, 7, 3}, {"3.3-IV3", 6, 7, 3},
		// Kafka sends StopReplica v4 from 3.4-IV0; we stay at v3 (see
		// stopReplicaVersion: kmsg misplaces v4's IsKRaftController).
		{"3.4-IV0", 7, 8, 3},
		{"3.5-IV0", 7, 8, 3}, {"3.5-IV1", 7, 8, 3}, {"3.5-IV2", 7, 8, 3},
		{"3.6-IV0", 7, 8, 3}, {"3.6-IV1", 7, 8, 3}, {"3.6-IV2", 7, 8, 3},
		{"3.7-IV0", 7, 8, 3}, {"3.7-IV1", 7, 8, 3}, {"3.7-IV2", 7, 8, 3}, {"3.7-IV3", 7, 8, 3}, {"3.7-IV4", 7, 8, 3},
		{"3.8-IV0", 7, 8, 3},
		{"3.9-IV0", 7, 8, 3},
	}
	all := AllIBPs()
	if len(all) != len(rows) {
		t.Fatalf("AllIBPs has %d versions, the table %d", len(all), len(rows))
	}
	for i, r := range rows {
		v := all[i]
		if v.String() != r.name {
			t.Errorf("AllIBPs()[%d] = %s, want %s", i, v, r.name)
		}
		parsed, err := ParseIBP(r.name)
		if err != nil || parsed != v {
			t.Errorf("ParseIBP(%q) = %v, %v; want %v", r.name, parsed, err, v)
		}
		want := RequestVersions{LeaderAndISR: r.lai, UpdateMetadata: r.um, StopReplica: r.stp}
		if got := v.RequestVersions(); got != want {
			t.Errorf("%s: RequestVersions() = %+v, want %+v", r.name, got, want)
		}
		if i > 0 && !all[i-1].Less(v) {
			t.Errorf("%s is not newer than %s", v, all[i-1])
		}
	}
}

func TestParseIBPForms(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0.8.0", "0.8.0"},
		{"0.8.2.1", "0.8.2"},
		{"0.9.0.0", "0.9.0"},
		{"0.10.0", "0.10.0-IV1"}, // a release means its latest internal version
		{"0.10.0-IV0", "0.10.0-IV0"},
		{"0.10.0.1", "0.10.0-IV1"},
		{"0.10.1", "0.10.1-IV2"},
		{"0.11.0", "0.11.0-IV2"},
		{"1.0", "1.0-IV0"},
		{"1.0.1", "1.0-IV0"}, // Kafka's documented quirk: two numbers count from 1.0
		{"2.0", "2.0-IV1"},
		{"2.4", "2.4-IV1"},
		{"2.7", "2.7-IV2"},
		{"2.7-IV1", "2.7-IV1"},
		{"2.7.1", "2.7-IV2"},
		{"2.8", "2.8-IV1"},
		{"3.3", "3.3-IV3"},
		{"3.7", "3.7-IV4"},
		{"3.9", "3.9-IV0"},
		{"3.9.1", "3.9-IV0"},
		{"  3.4  ", "3.4-IV0"}, // Kafka's config parser trims
	}
	for _, c := range cases {
		got, err := ParseIBP(c.in)
		if err != nil {
			t.Errorf("ParseIBP(%q): %v", c.in, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("ParseIBP(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseIBPRejects(t *testing.T) {
	for _, in := range []string{"", "3", "0.10", "0.7.0", "2.7-IV3", "2.9", "4.0", "4.0-IV0", "3.9-iv0", "latest", "2.7-", "-IV0"} {
		got, err := ParseIBP(in)
		var ibpErr *IBPError
		if !errors.As(err, &ibpErr) {
			t.Errorf("ParseIBP(%q) = %v, %v; want *IBPError", in, got, err)
			continue
		}
		want := "inter.broker.protocol.version: Version " + in + " is not a valid version"
		if err.Error() != want {
			t.Errorf("ParseIBP(%q) error %q, want %q", in, err, want)
		}
	}
}

func TestMustParseIBPPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParseIBP(\"nope\") did not panic")
		}
	}()
	MustParseIBP("nope")
}

func TestIBPZeroValueIsLatest(t *testing.T) {
	var zero IBP
	if zero.String() != "3.9-IV0" || zero.Release() != "3.9" {
		t.Errorf("zero IBP = %s (release %s), want 3.9-IV0", zero, zero.Release())
	}
	if zero.Compare(LatestIBP()) != 0 || !zero.AtLeast(LatestIBP()) || zero.Less(LatestIBP()) {
		t.Error("zero IBP does not compare equal to LatestIBP")
	}
	if zero.RequestVersions() != LatestIBP().RequestVersions() {
		t.Error("zero IBP request versions differ from the latest")
	}
}

func TestIBPCompare(t *testing.T) {
	a, b := MustParseIBP("2.7-IV1"), MustParseIBP("2.7-IV2")
	if a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 {
		t.Errorf("Compare: %d %d %d", a.Compare(b), b.Compare(a), a.Compare(a))
	}
	if !b.AtLeast(a) || a.AtLeast(b) || !a.AtLeast(a) {
		t.Error("AtLeast is wrong")
	}
	if !a.Less(b) || b.Less(a) || a.Less(a) {
		t.Error("Less is wrong")
	}
	if a.Release() != "2.7" || MustParseIBP("0.10.1-IV1").Release() != "0.10.1" {
		t.Error("Release is wrong")
	}
}

// TestIBPGates pins each feature gate's threshold: false just below, true
// at it.
func TestIBPGates(t *testing.T) {
	gates := []struct {
		name           string
		gate           func(IBP) bool
		below, atLeast string
	}{
		{"LeaderRecoverySupported", IBP.LeaderRecoverySupported, "3.1-IV0", "3.2-IV0"},
		{"TopicIDsSupported", IBP.TopicIDsSupported, "2.7-IV2", "2.8-IV0"},
		{"AlterPartitionSupported", IBP.AlterPartitionSupported, "2.7-IV1", "2.7-IV2"},
		{"FeatureVersioningSupported", IBP.FeatureVersioningSupported, "2.6-IV0", "2.7-IV0"},
		{"AllocateProducerIDsSupported", IBP.AllocateProducerIDsSupported, "2.8-IV1", "3.0-IV0"},
	}
	for _, g := range gates {
		if g.gate(MustParseIBP(g.below)) {
			t.Errorf("%s(%s) = true", g.name, g.below)
		}
		if !g.gate(MustParseIBP(g.atLeast)) || !g.gate(LatestIBP()) {
			t.Errorf("%s(%s) = false", g.name, g.atLeast)
		}
		if g.gate(MustParseIBP("0.8.0")) {
			t.Errorf("%s(0.8.0) = true", g.name)
		}
	}
}
