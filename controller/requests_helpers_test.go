package controller

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// rqCluster is a controller over brokers registered straight in
// ZooKeeper: no broker process answers (the controller's requests to them
// fail and are retried in the background), so nothing but the test sends
// AlterPartition or changes a partition's state. That makes the
// request-path tests exact: every epoch the test asserts is one it caused.
type rqCluster struct {
	obs *zkadmin.Client
	ctl *node
}

// rqStart registers brokers, runs setup (topics and state znodes written
// before the controller loads them), then starts the controller and waits
// until it is ready with every broker listed.
func rqStart(t *testing.T, brokers []int32, setup func(obs *zkadmin.Client)) *rqCluster {
	t.Helper()
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	for _, id := range brokers {
		registerBroker(t, obs, id, "127.0.0.1", 1)
	}
	if setup != nil {
		setup(obs)
	}
	ctl := startNode(t, chroot, nodeOpts{id: 100})
	waitFor(t, "controller ready with every broker", func() bool {
		return ctl.c.Status().Ready && len(ctl.c.Snapshot().Brokers) == len(brokers)
	})
	return &rqCluster{obs: obs, ctl: ctl}
}

// rqTopic writes a topic's assignment and, for the partitions listed in
// states, their state znodes (so that the controller loads them as they
// are instead of creating them).
func rqTopic(t *testing.T, obs *zkadmin.Client, name string, parts map[int32][]int32, states map[int32][]byte) {
	t.Helper()
	createTopic(t, obs, name, parts)
	for p, data := range states {
		writeState(t, obs, name, p, data)
	}
}

// rqState encodes a partition state znode with every field the tests set.
func rqState(t *testing.T, s znodes.PartitionState) []byte {
	t.Helper()
	data, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// epoch returns a registered broker's epoch (its znode's czxid) as the
// controller knows it.
func (zc *rqCluster) epoch(t *testing.T, id int32) int64 {
	t.Helper()
	for _, b := range zc.ctl.c.Snapshot().Brokers {
		if b.ID == id {
			return b.Epoch
		}
	}
	t.Fatalf("broker %d is not registered with the controller", id)
	return 0
}

// topicID waits until the controller knows the topic with an id for every
// partition listed, and returns the id.
func (zc *rqCluster) topicID(t *testing.T, name string, parts int) [16]byte {
	t.Helper()
	var id [16]byte
	waitFor(t, fmt.Sprintf("topic %s loaded with %d partitions", name, parts), func() bool {
		tv := zc.ctl.c.Snapshot().Topics.Get(name)
		if tv == nil || tv.ID.IsZero() || len(tv.Partitions) != parts {
			return false
		}
		id = tv.ID
		return true
	})
	return id
}

// kill deletes a broker's registration, as its session expiring would, and
// waits until the controller has handled it.
func (zc *rqCluster) kill(t *testing.T, id int32) {
	t.Helper()
	if err := zc.obs.Delete(testCtx(t), znodes.BrokerIDPath(id), zkadmin.AnyVersion); err != nil {
		t.Fatalf("deregister broker %d: %v", id, err)
	}
	waitFor(t, fmt.Sprintf("broker %d gone", id), func() bool {
		return !slices.ContainsFunc(zc.ctl.c.Snapshot().Brokers, func(b BrokerView) bool { return b.ID == id })
	})
}

// revive registers a broker again (a new czxid, hence a new epoch) and
// waits until the controller lists it.
func (zc *rqCluster) revive(t *testing.T, id int32) {
	t.Helper()
	registerBroker(t, zc.obs, id, "127.0.0.1", 1)
	waitFor(t, fmt.Sprintf("broker %d back", id), func() bool {
		return slices.ContainsFunc(zc.ctl.c.Snapshot().Brokers, func(b BrokerView) bool { return b.ID == id && !b.ShuttingDown })
	})
}

// version returns the state znode's version (the partition epoch) without
// decoding it.
func (zc *rqCluster) version(t *testing.T, topic string, p int32) int32 {
	t.Helper()
	_, stat, err := zc.obs.Get(testCtx(t), znodes.PartitionStatePath(topic, p))
	if err != nil {
		t.Fatalf("read %s-%d state: %v", topic, p, err)
	}
	return stat.Version
}

// waitView waits until the controller's snapshot shows tp with the
// leadership of the state znode (leader, epochs, ISR) and returns it.
func (zc *rqCluster) waitView(t *testing.T, topic string, p int32) election.LeaderAndIsr {
	t.Helper()
	var st election.LeaderAndIsr
	waitFor(t, fmt.Sprintf("snapshot of %s-%d agrees with ZooKeeper", topic, p), func() bool {
		var ok bool
		st, ok = tryReadState(t, zc.obs, topic, p)
		if !ok {
			return false
		}
		pv, ok := partitionView(zc.ctl.c, topic, p)
		return ok && pv.Leader == st.Leader && pv.LeaderEpoch == st.LeaderEpoch &&
			pv.PartitionEpoch == st.PartitionEpoch && slices.Equal(pv.ISR, st.ISR)
	})
	return st
}

// rqSameState fails unless two reads of a state znode are equal in every
// field the controller writes.
func rqSameState(t *testing.T, what string, got, want election.LeaderAndIsr) {
	t.Helper()
	if got.Leader != want.Leader || got.LeaderEpoch != want.LeaderEpoch || got.PartitionEpoch != want.PartitionEpoch ||
		!slices.Equal(got.ISR, want.ISR) || got.LeaderRecoveryState != want.LeaderRecoveryState ||
		got.ControllerEpoch != want.ControllerEpoch {
		t.Fatalf("%s: state changed, want %v, got %v", what, want, got)
	}
}

// rqElect sends an ElectLeaders request and returns its per-partition
// results keyed "topic-partition".
func rqElect(t *testing.T, c *Controller, version int16, typ int8, topics map[string][]int32) (
	*kmsg.ElectLeadersResponse, map[string]kmsg.ElectLeadersResponseTopicPartition) {
	t.Helper()
	req := kmsg.NewPtrElectLeadersRequest()
	req.Version, req.ElectionType = version, typ
	if topics != nil {
		req.Topics = []kmsg.ElectLeadersRequestTopic{}
		for _, name := range slices.Sorted(maps.Keys(topics)) {
			req.Topics = append(req.Topics, kmsg.ElectLeadersRequestTopic{Topic: name, Partitions: topics[name]})
		}
	}
	resp, err := c.ElectLeaders(testCtx(t), req)
	if err != nil {
		t.Fatalf("ElectLeaders: %v", err)
	}
	out := map[string]kmsg.ElectLeadersResponseTopicPartition{}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			key := fmt.Sprintf("%s-%d", rt.Topic, rp.Partition)
			if _, dup := out[key]; dup {
				t.Fatalf("ElectLeaders answered %s twice: %+v", key, resp.Topics)
			}
			out[key] = rp
		}
	}
	return resp, out
}
