package config

import (
	"strings"
	"testing"
)

func TestParseIBP(t *testing.T) {
	tests := []struct {
		in   string
		want IBP
	}{
		{"0.8.0", IBP0_8_0},
		{"0.8.2", IBP0_8_2},
		{"0.9.0", IBP0_9_0},
		{"0.9.0.1", IBP0_9_0},     // pre-1.0 releases have three segments
		{"0.10.0", IBP0_10_0_IV1}, // a release means its newest IV
		{"0.10.0-IV0", IBP0_10_0_IV0},
		{"0.10.0.1", IBP0_10_0_IV1},
		{"0.10.1", IBP0_10_1_IV2},
		{"0.11.0", IBP0_11_0_IV2},
		{"1.0", IBP1_0_IV0},
		{"1.0.2", IBP1_0_IV0}, // segments past the release are ignored
		{"2.0", IBP2_0_IV1},
		{"2.4-IV0", IBP2_4_IV0},
		{"2.7", IBP2_7_IV2},
		{"2.7-IV1", IBP2_7_IV1},
		{"2.7-IV2", IBP2_7_IV2},
		{"2.8", IBP2_8_IV1},
		{"3.3", IBP3_3_IV3},
		{"3.7", IBP3_7_IV4},
		{"3.7-IV3", IBP3_7_IV3},
		{"3.8", IBP3_8_IV0},
		{"3.9", IBP3_9_IV0},
		{"3.9-IV0", IBP3_9_IV0},
		{"3.9.1", IBP3_9_IV0},
	}
	for _, tt := range tests {
		got, err := ParseIBP(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseIBP(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseIBPRefuses(t *testing.T) {
	for _, in := range []string{"", "3", "3.10", "4.0", "4.0-IV0", "3.9-IV1", "3.9-iv0", "0.8", "0.7.0", "2.7-IV", "latest", " 3.9"} {
		if v, err := ParseIBP(in); err == nil {
			t.Errorf("ParseIBP(%q) = %v, want error", in, v)
		} else if !strings.Contains(err.Error(), "from 0.8.0 to 3.9") {
			t.Errorf("ParseIBP(%q) error %q does not name the range", in, err)
		}
	}
}

func TestIBPOrderAndNames(t *testing.T) {
	names := ibpNames()
	if len(names) != int(IBPLatest)+1 {
		t.Fatalf("%d names for %d versions", len(names), IBPLatest+1)
	}
	seen := map[string]bool{}
	for i, n := range names {
		v := IBP(i)
		if v.String() != n || seen[n] {
			t.Errorf("IBP(%d) = %q, name %q (dup %v)", i, v.String(), n, seen[n])
		}
		seen[n] = true
		// Every full spelling parses back to itself.
		if got, err := ParseIBP(n); err != nil || got != v {
			t.Errorf("ParseIBP(%q) = %v, %v", n, got, err)
		}
		if i > 0 && !v.AtLeast(IBP(i-1)) || IBP(i-1).AtLeast(v) && i > 0 {
			t.Errorf("order broken at %s", n)
		}
	}
	// The gates the controller reference names (controller.md §5.3).
	gates := []struct {
		v    IBP
		name string
	}{
		{IBP3_4_IV0, "3.4-IV0"}, {IBP3_2_IV0, "3.2-IV0"}, {IBP2_8_IV1, "2.8-IV1"}, {IBP2_8_IV0, "2.8-IV0"},
		{IBP2_7_IV2, "2.7-IV2"}, {IBP2_7_IV0, "2.7-IV0"}, {IBP2_6_IV0, "2.6-IV0"}, {IBP2_4_IV1, "2.4-IV1"},
		{IBP2_4_IV0, "2.4-IV0"}, {IBP2_2_IV0, "2.2-IV0"}, {IBP1_0_IV0, "1.0-IV0"}, {IBP0_10_2_IV0, "0.10.2-IV0"},
		{IBP0_10_0_IV1, "0.10.0-IV1"}, {IBP0_9_0, "0.9.0"}, {IBP3_0_IV0, "3.0-IV0"}, {IBP3_3_IV0, "3.3-IV0"},
	}
	for _, g := range gates {
		if g.v.String() != g.name {
			t.Errorf("constant for %s prints %s", g.name, g.v)
		}
	}
	if !IBP3_9_IV0.AtLeast(IBP2_7_IV2) || IBP2_7_IV1.AtLeast(IBP2_7_IV2) {
		t.Error("AtLeast wrong around 2.7-IV2")
	}
	if IBP2_7_IV2.Release() != "2.7" || IBP0_8_1.Release() != "0.8.1" || IBP0_10_1_IV1.Release() != "0.10.1" {
		t.Error("Release wrong")
	}
	if bad := IBP(200); bad.Valid() || bad.String() != "IBP(200)" {
		t.Errorf("IBP(200): valid=%v %q", bad.Valid(), bad.String())
	}
	if b, _ := IBP2_7_IV2.MarshalText(); string(b) != "2.7-IV2" {
		t.Errorf("MarshalText = %q", b)
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
		if g.gate(mustParseIBP(t, g.below)) {
			t.Errorf("%s(%s) = true", g.name, g.below)
		}
		if !g.gate(mustParseIBP(t, g.atLeast)) || !g.gate(IBPLatest) {
			t.Errorf("%s(%s) = false", g.name, g.atLeast)
		}
		if g.gate(mustParseIBP(t, "0.8.0")) {
			t.Errorf("%s(0.8.0) = true", g.name)
		}
	}
}

func mustParseIBP(t *testing.T, s string) IBP {
	t.Helper()
	v, err := ParseIBP(s)
	if err != nil {
		t.Fatalf("ParseIBP(%q): %v", s, err)
	}
	return v
}
