package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDynamicKeys(t *testing.T) {
	want := []string{
		"auto.leader.rebalance.enable",
		"leader.imbalance.per.broker.percentage",
		"max.broker.partitions",
		"max.partitions",
		"min.insync.replicas",
		"unclean.leader.election.enable",
		"unclean.recovery.manager.enabled",
		"unclean.recovery.strategy",
		"unclean.recovery.timeout.ms",
	}
	if got := DynamicKeys(); !reflect.DeepEqual(got, want) {
		t.Errorf("DynamicKeys() = %q", got)
	}
	if !IsDynamic("max.partitions") || IsDynamic("node.id") || IsDynamic("log.retention.ms") {
		t.Error("IsDynamic wrong")
	}
}

func TestWithDynamicApplies(t *testing.T) {
	static := valid()
	m := map[string]string{
		"max.partitions":                         "1000",
		"max.broker.partitions":                  "300",
		"unclean.leader.election.enable":         "true",
		"unclean.recovery.strategy":              "none",
		"unclean.recovery.manager.enabled":       "true",
		"unclean.recovery.timeout.ms":            "1000",
		"auto.leader.rebalance.enable":           "false",
		"leader.imbalance.per.broker.percentage": "20",
		// Not dynamic here, or not ours: ignored.
		"num.partitions":   "50",
		"node.id":          "3",
		"log.retention.ms": "1",
	}
	got, err := static.WithDynamic(m)
	if err != nil {
		t.Fatal(err)
	}
	want := static
	want.MaxPartitions, want.MaxBrokerPartitions = 1000, 300
	want.UncleanLeaderElectionEnable = true
	want.UncleanRecoveryStrategy = RecoveryNone
	want.UncleanRecoveryManagerEnabled = true
	want.UncleanRecoveryTimeout = time.Second
	want.AutoLeaderRebalanceEnable = false
	want.LeaderImbalancePerBrokerPercentage = 20
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if got.Limits() != (Limits{MaxBrokerPartitions: 300, MaxPartitions: 1000}) || got.Limits().IsUnlimited() {
		t.Errorf("limits = %+v", got.Limits())
	}
	// Pure: the static config is unchanged.
	if static.MaxPartitions != Unlimited || static.UncleanLeaderElectionEnable {
		t.Error("WithDynamic changed its receiver")
	}
}

// A key removed from the znode falls back to the static value, because the
// overlay is always applied to the static config.
func TestWithDynamicFallsBack(t *testing.T) {
	static := valid()
	static.MaxPartitions = 500
	first, _ := static.WithDynamic(map[string]string{"max.partitions": "10"})
	second, _ := static.WithDynamic(map[string]string{})
	if first.MaxPartitions != 10 || second.MaxPartitions != 500 {
		t.Errorf("first %d, second %d", first.MaxPartitions, second.MaxPartitions)
	}
	nilMap, err := static.WithDynamic(nil)
	if err != nil || !reflect.DeepEqual(nilMap, static) {
		t.Errorf("nil map: %v", err)
	}
}

func TestWithDynamicSkipsBadValues(t *testing.T) {
	static := valid()
	m := map[string]string{
		"max.partitions":                         "-1",
		"max.broker.partitions":                  "100",
		"unclean.leader.election.enable":         "maybe",
		"unclean.recovery.strategy":              "Foo",
		"leader.imbalance.per.broker.percentage": "150",
		"unclean.recovery.timeout.ms":            "0",
	}
	got, err := static.WithDynamic(m)
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		`config: max.partitions="-1": must be at least 0 (set by /config/brokers/<default>)`,
		`config: unclean.leader.election.enable="maybe": must be true or false (set by /config/brokers/<default>)`,
		`config: unclean.recovery.strategy="Foo": must be one of None, Balanced, Aggressive (set by /config/brokers/<default>)`,
		`config: unclean.recovery.timeout.ms="0": must be at least 1 (set by /config/brokers/<default>)`,
		`config: leader.imbalance.per.broker.percentage="150": must be between 0 and 100 (set by /config/brokers/<default>)`,
	}
	if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Key != "max.partitions" {
		t.Errorf("errors.As = %+v", ve)
	}
	// The valid value is applied; the bad ones keep the static values.
	if got.MaxBrokerPartitions != 100 || got.MaxPartitions != Unlimited || got.UncleanLeaderElectionEnable ||
		got.UncleanRecoveryStrategy != RecoveryBalanced || got.LeaderImbalancePerBrokerPercentage != 10 ||
		got.UncleanRecoveryTimeout != 5*time.Minute {
		t.Errorf("got %+v", got)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("result of WithDynamic does not validate: %v", err)
	}
}

func TestValidateDynamic(t *testing.T) {
	tests := []struct {
		m    map[string]string
		want string
	}{
		{map[string]string{"max.partitions": "100", "log.retention.ms": "1000"}, ""},
		{map[string]string{}, ""},
		{map[string]string{"max.broker.partitions": "x"},
			`config: max.broker.partitions="x": must be a 32-bit integer`},
		{map[string]string{"unclean.recovery.strategy": "Foo"},
			`config: unclean.recovery.strategy="Foo": must be one of None, Balanced, Aggressive`},
		{map[string]string{"unclean.leader.election.enable": "true", "num.partitions": "3"},
			`config: num.partitions="3": cannot be changed at run time; set it in the properties file (dynamic keys: ` +
				strings.Join(DynamicKeys(), ", ") + `)`},
	}
	for _, tt := range tests {
		err := ValidateDynamic(tt.m)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || err.Error() != tt.want) {
			t.Errorf("ValidateDynamic(%v) = %v, want %q", tt.m, err, tt.want)
		}
	}
}

// TestWithDynamicEveryKey gives each dynamic key a good and a bad value.
func TestWithDynamicEveryKey(t *testing.T) {
	tests := []struct {
		key, good, goodBack, bad, reason string
	}{
		{"max.broker.partitions", "0", "0", "1.5", "must be a 32-bit integer"},
		{"max.partitions", "2147483647", "2147483647", "2147483648", "must be a 32-bit integer"},
		{"unclean.leader.election.enable", "TRUE", "true", "1", "must be true or false"},
		{"unclean.recovery.strategy", "none", "None", "manual", "must be one of None, Balanced, Aggressive"},
		{"unclean.recovery.manager.enabled", "true", "true", "on", "must be true or false"},
		{"unclean.recovery.timeout.ms", "1", "1", "-5", "must be at least 1"},
		{"auto.leader.rebalance.enable", "false", "false", "", "must be true or false"},
		{"leader.imbalance.per.broker.percentage", "100", "100", "-1", "must be between 0 and 100"},
		{"min.insync.replicas", "2", "2", "0", "must be at least 1"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.key] = true
		spec, _ := lookupSpec(tt.key)
		c, err := valid().WithDynamic(map[string]string{tt.key: tt.good})
		if err != nil || spec.get(c) != tt.goodBack {
			t.Errorf("%s=%q: got %q, %v", tt.key, tt.good, spec.get(c), err)
		}
		c, err = valid().WithDynamic(map[string]string{tt.key: tt.bad})
		want := `config: ` + tt.key + `="` + tt.bad + `": ` + tt.reason + ` (set by /config/brokers/<default>)`
		if err == nil || err.Error() != want {
			t.Errorf("%s=%q:\n got %v\nwant %s", tt.key, tt.bad, err, want)
		}
		if spec.get(c) != spec.get(valid()) {
			t.Errorf("%s: bad value changed the config to %q", tt.key, spec.get(c))
		}
		if err := ValidateDynamic(map[string]string{tt.key: tt.good}); err != nil {
			t.Errorf("ValidateDynamic(%s=%q) = %v", tt.key, tt.good, err)
		}
		if err := ValidateDynamic(map[string]string{tt.key: tt.bad}); err == nil {
			t.Errorf("ValidateDynamic(%s=%q) accepted it", tt.key, tt.bad)
		}
	}
	for _, k := range DynamicKeys() {
		if !covered[k] {
			t.Errorf("dynamic key %s has no row", k)
		}
	}
}

// Every static key is refused by ValidateDynamic.
func TestValidateDynamicRefusesEveryStaticKey(t *testing.T) {
	for _, k := range Keys() {
		if k.Dynamic {
			continue
		}
		err := ValidateDynamic(map[string]string{k.Name: k.Default})
		if err == nil || !strings.Contains(err.Error(), "cannot be changed at run time") {
			t.Errorf("ValidateDynamic(%s) = %v", k.Name, err)
		}
	}
}
