package brokersim

import (
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

// TestRegistrationFormat compares /brokers/ids/<id> field by field with
// what a Kafka 3.9 broker with one PLAINTEXT listener writes (znodes
// reference §2.4, §3.2).
func TestRegistrationFormat(t *testing.T) {
	before := time.Now()
	c := startCluster(t, Options{Brokers: []BrokerSpec{{ID: 1, Rack: "rack-a"}, {ID: 2}}})
	after := time.Now()
	zk := observer(t, c)
	ctx := testCtx(t)
	for _, b := range c.Brokers() {
		data, stat, err := zk.Get(ctx, znodes.BrokerIDPath(b.ID()))
		if err != nil {
			t.Fatalf("broker %d: %v", b.ID(), err)
		}
		// The checked ephemeral create: create with null data, then
		// setData at version 0, so the node is ephemeral at version 1 and
		// its czxid is the broker epoch.
		if stat.EphemeralOwner == 0 || stat.Version != 1 || stat.Czxid != b.Epoch() || b.Epoch() == 0 {
			t.Errorf("broker %d: stat %+v, epoch %d; want ephemeral, version 1, czxid = epoch", b.ID(), stat, b.Epoch())
		}
		reg, err := znodes.DecodeBrokerRegistration(b.ID(), data)
		if err != nil {
			t.Fatalf("broker %d: decode %s: %v", b.ID(), data, err)
		}
		_, portStr, _ := net.SplitHostPort(b.Addr())
		port, _ := strconv.Atoi(portStr)
		wantEP := []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: int32(port), SecurityProtocol: "PLAINTEXT"}}
		if reg.Version != 5 || reg.Host != "127.0.0.1" || reg.Port != int32(port) || reg.JMXPort != -1 ||
			!slices.Equal(reg.Endpoints, wantEP) || len(reg.Features) != 0 || len(reg.Unknown) != 0 {
			t.Errorf("broker %d: registration %+v", b.ID(), reg)
		}
		ts, err := strconv.ParseInt(reg.Timestamp, 10, 64)
		if err != nil || ts < before.UnixMilli() || ts > after.UnixMilli() {
			t.Errorf("broker %d: timestamp %q not in [%d, %d]", b.ID(), reg.Timestamp, before.UnixMilli(), after.UnixMilli())
		}
		checkRack(t, b, reg.Rack)
		checkRawRegistration(t, b, data)
	}
}

func checkRack(t *testing.T, b *Broker, rack *string) {
	t.Helper()
	switch {
	case b.Rack() == "" && rack != nil:
		t.Errorf("broker %d: rack %q, want none", b.ID(), *rack)
	case b.Rack() != "" && (rack == nil || *rack != b.Rack()):
		t.Errorf("broker %d: rack %v, want %q", b.ID(), rack, b.Rack())
	}
}

// checkRawRegistration checks the JSON types Kafka's decoder insists on:
// the exact key set, timestamp as a string, features as an empty object,
// the protocol map.
func checkRawRegistration(t *testing.T, b *Broker, data []byte) {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	want := []string{"version", "host", "port", "jmx_port", "timestamp", "endpoints",
		"listener_security_protocol_map", "features"}
	if b.Rack() != "" {
		want = append(want, "rack")
	}
	for _, k := range want {
		if _, ok := raw[k]; !ok {
			t.Errorf("broker %d: key %q missing in %s", b.ID(), k, data)
		}
	}
	if len(raw) != len(want) {
		t.Errorf("broker %d: %d keys, want %d: %s", b.ID(), len(raw), len(want), data)
	}
	if string(raw["features"]) != "{}" || string(raw["listener_security_protocol_map"]) != `{"PLAINTEXT":"PLAINTEXT"}` ||
		string(raw["jmx_port"]) != "-1" || string(raw["version"]) != "5" || raw["timestamp"][0] != '"' {
		t.Errorf("broker %d: registration %s", b.ID(), data)
	}
}

// TestStartPreparesZooKeeper checks the broker start-up steps done once
// per cluster: the top-level paths and /cluster/id.
func TestStartPreparesZooKeeper(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	zk := observer(t, c)
	ctx := testCtx(t)
	for _, p := range znodes.TopLevelPersistentPaths() {
		if ok, _, err := zk.Exists(ctx, p); err != nil || !ok {
			t.Errorf("%s: exists %v, %v", p, ok, err)
		}
	}
	data, _, err := zk.Get(ctx, znodes.ClusterIDPath)
	if err != nil {
		t.Fatal(err)
	}
	id, err := znodes.DecodeClusterID(data)
	if err != nil || id.ID != c.ClusterID() || len(id.ID) != 22 {
		t.Fatalf("cluster id %q (%v), cluster says %q", id.ID, err, c.ClusterID())
	}
	// A second cluster in the same chroot reads the same id.
	c2 := startCluster(t, Options{Chroot: c.set.Chroot, Brokers: specs(2)})
	if c2.ClusterID() != c.ClusterID() {
		t.Fatalf("second cluster id %q, want %q", c2.ClusterID(), c.ClusterID())
	}
}

// TestDuplicateIDRefused: a broker id registered by another session fails
// start-up, as Kafka's does.
func TestDuplicateIDRefused(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	_, err := Start(testCtx(t), Options{ZooKeeperServers: c.set.ZooKeeperServers, Chroot: c.set.Chroot,
		Brokers: specs(1), SessionTimeout: 4 * time.Second})
	var inUse *IDInUseError
	if !errors.As(err, &inUse) || inUse.ID != 1 {
		t.Fatalf("second broker 1: %v, want IDInUseError", err)
	}
	if _, err := c.AddBroker(testCtx(t), BrokerSpec{ID: 1}); err == nil {
		t.Fatal("AddBroker of an existing id succeeded")
	}
	// The first broker is unharmed.
	zk := observer(t, c)
	_, stat, err := zk.Get(testCtx(t), znodes.BrokerIDPath(1))
	if err != nil || stat.Czxid != c.Broker(1).Epoch() {
		t.Fatalf("registration after refused duplicate: %+v, %v", stat, err)
	}
}

func TestOptionsValidation(t *testing.T) {
	bad := []Options{
		{},
		{ZooKeeperServers: []string{"x:1"}, IBP: "2.7-IV1"},
		{ZooKeeperServers: []string{"x:1"}, IBP: "nonsense"},
		{ZooKeeperServers: []string{"x:1"}, Brokers: []BrokerSpec{{ID: -1}}},
		{ZooKeeperServers: []string{"x:1"}, Brokers: []BrokerSpec{{ID: 1}, {ID: 1}}},
	}
	for i, o := range bad {
		if _, err := o.resolve(); err == nil {
			t.Errorf("options %d: no error", i)
		}
	}
	s, err := Options{ZooKeeperServers: []string{"x:1"}}.resolve()
	if err != nil || s.ibp.String() != "3.9-IV0" || !s.topicIDsSupported() {
		t.Fatalf("defaults: %+v, %v", s, err)
	}
}
