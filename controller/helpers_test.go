package controller

import (
	"errors"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

func testConfig(id int32) config.Config {
	c := config.Default()
	c.NodeID = id
	return c
}

// registerBroker registers a broker as Kafka does (ephemeral, v5 JSON) on
// the session of zk.
func registerBroker(t testing.TB, zk *zkadmin.Client, id int32, host string, port int32) {
	t.Helper()
	ep := znodes.Endpoint{Listener: "PLAINTEXT", Host: host, Port: port, SecurityProtocol: "PLAINTEXT"}
	data, err := znodes.NewBrokerRegistration([]znodes.Endpoint{ep}, nil, -1, time.Now()).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.Create(testCtx(t), znodes.BrokerIDPath(id), data, zkadmin.Ephemeral); err != nil {
		t.Fatalf("register broker %d: %v", id, err)
	}
}

// createTopic writes a topic assignment znode as an admin tool does (no
// topic id, no state znodes: the controller adds both).
func createTopic(t testing.TB, zk *zkadmin.Client, name string, parts map[int32][]int32) {
	t.Helper()
	data, err := znodes.TopicAssignment{Partitions: parts}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.Create(testCtx(t), znodes.TopicPath(name), data, zkadmin.Persistent); err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
}

// writeState creates a partition state znode (and its parents).
func writeState(t testing.TB, zk *zkadmin.Client, topic string, p int32, data []byte) {
	t.Helper()
	if _, err := zk.CreateRecursive(testCtx(t), znodes.PartitionStatePath(topic, p), data, zkadmin.Persistent); err != nil {
		t.Fatalf("write state %s-%d: %v", topic, p, err)
	}
}

func encodeTestState(t testing.TB, leader, leaderEpoch, controllerEpoch int32, isr ...int32) []byte {
	t.Helper()
	data, err := znodes.PartitionState{Leader: leader, LeaderEpoch: leaderEpoch, ControllerEpoch: controllerEpoch, ISR: isr}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// readState reads a partition state znode, with its version as the
// partition epoch.
func readState(t testing.TB, zk *zkadmin.Client, topic string, p int32) election.LeaderAndIsr {
	t.Helper()
	l, ok := tryReadState(t, zk, topic, p)
	if !ok {
		t.Fatalf("no state znode for %s-%d", topic, p)
	}
	return l
}

func tryReadState(t testing.TB, zk *zkadmin.Client, topic string, p int32) (election.LeaderAndIsr, bool) {
	t.Helper()
	data, stat, err := zk.Get(testCtx(t), znodes.PartitionStatePath(topic, p))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return election.LeaderAndIsr{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := znodes.DecodePartitionState(topic, p, data)
	if err != nil {
		t.Fatal(err)
	}
	return leaderAndIsrFrom(s, stat.Version), true
}

// partitionView returns a partition from the controller's snapshot.
func partitionView(c *Controller, topic string, p int32) (PartitionView, bool) {
	tv := c.Snapshot().Topics.Get(topic)
	if tv == nil {
		return PartitionView{}, false
	}
	for _, pv := range tv.Partitions {
		if pv.Partition == p {
			return pv, true
		}
	}
	return PartitionView{}, false
}

// metricValue reads a gauge or counter from the node's registry.
func metricValue(t testing.TB, n *node, name string) float64 {
	t.Helper()
	mfs, err := n.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name || len(mf.GetMetric()) == 0 {
			continue
		}
		m := mf.GetMetric()[0]
		if g := m.GetGauge(); g != nil {
			return g.GetValue()
		}
		if c := m.GetCounter(); c != nil {
			return c.GetValue()
		}
		if h := m.GetHistogram(); h != nil {
			return float64(h.GetSampleCount())
		}
	}
	t.Fatalf("metric %s not found", name)
	return 0
}
