package config

import (
	"errors"
	"testing"
	"time"
)

func TestValueErrorFormat(t *testing.T) {
	tests := []struct {
		e    ValueError
		want string
	}{
		{ValueError{Key: "a.b", Value: "x", Reason: "must be y"}, `config: a.b="x": must be y`},
		{ValueError{Key: "a.b", Value: `q"uote`, Reason: "r"}, `config: a.b="q\"uote": r`},
		{ValueError{Key: "a.b", Value: "", Reason: "r", Origin: "env KZADMIN_A_B"}, `config: a.b="": r (set by env KZADMIN_A_B)`},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
	if joinValueErrors(nil) != nil {
		t.Error("joinValueErrors(nil) != nil")
	}
	err := joinValueErrors([]*ValueError{{Key: "k", Value: "v", Reason: "r"}})
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Key != "k" {
		t.Errorf("errors.As on one joined error: %v", err)
	}
}

func TestKeysMetadata(t *testing.T) {
	dynamic := map[string]bool{}
	for _, k := range DynamicKeys() {
		dynamic[k] = true
	}
	for _, k := range Keys() {
		if k.Env != EnvName(k.Name) {
			t.Errorf("%s: env %s", k.Name, k.Env)
		}
		if k.Dynamic != dynamic[k.Name] || k.Dynamic != IsDynamic(k.Name) {
			t.Errorf("%s: dynamic %v", k.Name, k.Dynamic)
		}
		if _, ok := lookupSpec(k.Name); !ok {
			t.Errorf("%s: no spec", k.Name)
		}
	}
	if _, ok := lookupSpec("broker.id"); ok {
		t.Error("broker.id is a kzadmin key")
	}
}

func TestStringify(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{nil, ""},
		{"s", "s"},
		{[]string{"a", "b"}, "a,b"},
		{[]any{"a", 1}, "a,1"},
		{true, "true"},
		{int32(7), "7"},
		{int64(-1), "-1"},
	}
	for _, tt := range tests {
		if got := stringify(tt.in); got != tt.want {
			t.Errorf("stringify(%#v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEffectiveValues(t *testing.T) {
	z := ZooKeeper{SessionTimeout: 6 * time.Second, ConnectionTimeout: 2 * time.Second}
	if z.EffectiveConnectionTimeout() != 2*time.Second {
		t.Errorf("explicit connection timeout = %v", z.EffectiveConnectionTimeout())
	}
	c := valid()
	c.InterBrokerListenerName = "REPL"
	c.AdvertisedListeners = []Listener{{"REPL", "h", 1}}
	if c.EffectiveInterBrokerListenerName() != "REPL" || c.EffectiveAdvertisedListeners()[0].Host != "h" {
		t.Error("explicit values not returned")
	}
	if got := c.ControllerToBrokerListenerName(); got != "REPL" {
		t.Errorf("controller-to-broker listener without a control plane = %q, want REPL", got)
	}
	c.ControlPlaneListenerName = "CTRL"
	if got := c.ControllerToBrokerListenerName(); got != "CTRL" {
		t.Errorf("controller-to-broker listener = %q, want CTRL", got)
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		broker, cluster int32
		unlimited       bool
	}{
		{Unlimited, Unlimited, true},
		{100, Unlimited, false},
		{Unlimited, 100, false},
		{0, 0, false},
	}
	for _, tt := range tests {
		c := valid()
		c.MaxBrokerPartitions, c.MaxPartitions = tt.broker, tt.cluster
		l := c.Limits()
		if l.MaxBrokerPartitions != tt.broker || l.MaxPartitions != tt.cluster || l.IsUnlimited() != tt.unlimited {
			t.Errorf("%+v: unlimited %v", l, l.IsUnlimited())
		}
	}
}
