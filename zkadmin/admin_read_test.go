package zkadmin

import (
	"errors"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// Znodes written by other scripts may be anything. ReadCluster reports each
// bad one next to what it concerns and reads everything else.
func TestReadClusterMalformedZnodes(t *testing.T) {
	e := newAdminEnv(t, []string{"r1", "r2"}, nil)
	e.create("good", 2, 2)
	bad := map[string]string{
		"notjson":      `{"version":3,"partitions":`,
		"wrongtype":    `{"version":3,"partitions":{"0":["1","2"]}}`,
		"badkey":       `{"version":3,"partitions":{"zero":[1]}}`,
		"badid":        `{"version":3,"partitions":{"0":[1]},"topic_id":"nope"}`,
		"nullpayload":  ``,
		"arraypayload": `[1,2]`,
	}
	for name, data := range bad {
		var payload []byte
		if data != "" {
			payload = []byte(data)
		}
		if _, err := e.zk.Create(e.ctx, znodes.TopicPath(name), payload, Persistent); err != nil {
			t.Fatal(err)
		}
	}
	// A topic that decodes but has a bad config and a bad partition state,
	// a broker registration that does not decode, and junk under
	// /brokers/ids and /admin.
	e.create("halfbad", 2, 1)
	e.put(znodes.ConfigEntityPath("topics", "halfbad"), []byte(`{"version":1,"config":{"retention.ms":5}}`))
	e.put(znodes.PartitionStatePath("halfbad", 0), []byte(`{"leader":"one"}`))
	e.put(znodes.PartitionStatePath("halfbad", 1), []byte(`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}`))
	e.put(znodes.BrokerIDPath(7), []byte(`{"version":5}`))
	e.put(znodes.JoinPath(znodes.BrokerIDsPath, "seven"), nil)
	e.put(znodes.ReassignPartitionsPath, []byte(`{"version":1,"partitions":[{"topic":"good","partition":0,"replicas":[1],"log_dirs":["any"]}]}`))
	e.put("/controller", []byte(`not json`))

	before := e.snapshot()
	c, err := e.admin.ReadCluster(e.ctx, ReadOptions{AllTopics: true, Configs: true, States: true})
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, e.snapshot())
	if len(c.Topics) != len(bad)+2 {
		t.Fatalf("%d topics read, want %d", len(c.Topics), len(bad)+2)
	}
	for name := range bad {
		tp := c.Topic(name)
		var de *znodes.DecodeError
		if tp == nil || !errors.As(tp.Err, &de) || !strings.Contains(tp.Err.Error(), "/brokers/topics/"+name) {
			t.Errorf("topic %s: err %v", name, tp.Err)
		}
	}
	if g := c.Topic("good"); g.Err != nil || len(g.Partitions) != 2 || g.ConfigErr != nil {
		t.Errorf("good topic %+v", g)
	}
	h := c.Topic("halfbad")
	if h.Err != nil || h.ConfigErr == nil || !strings.Contains(h.ConfigErr.Error(), `"retention.ms"`) {
		t.Errorf("halfbad topic err %v config err %v", h.Err, h.ConfigErr)
	}
	if h.Partitions[0].Err == nil || h.Partitions[1].Err != nil || h.Partitions[1].State.Leader != 1 {
		t.Errorf("halfbad partitions %+v", h.Partitions)
	}
	if len(c.Brokers) != 2 || len(c.BrokerErrors) != 2 {
		t.Errorf("brokers %v, errors %v", c.Brokers, c.BrokerErrors)
	}
	if c.ReassignmentErr == nil || c.Reassignment != nil || c.ControllerErr == nil || c.Controller != -1 {
		t.Errorf("reassignment %v / %v, controller %d / %v", c.Reassignment, c.ReassignmentErr, c.Controller, c.ControllerErr)
	}
	// A malformed topic counts as no partitions, the good ones count.
	if _, n := c.ReplicaCounts(); n != 4 {
		t.Errorf("cluster counts %d partitions, want 4", n)
	}
	// Creation still works around the bad znodes, and none is rewritten.
	e.create("after", 1, 1)
	for name, data := range bad {
		if got := string(e.get(znodes.TopicPath(name))); got != data {
			t.Errorf("topic %s rewritten: %q", name, got)
		}
	}
}

func TestReadClusterBrokersAndSubset(t *testing.T) {
	e := newAdminEnv(t, []string{"r1", "", "r3"}, nil)
	for _, name := range []string{"a", "b"} {
		if _, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: name, Assignment: [][]int32{{1}}}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := e.admin.ReadCluster(e.ctx, ReadOptions{Topics: []string{"b", "missing", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Topics) != 1 || c.Topics[0].Name != "b" || len(c.TopicNames) != 2 || c.AllTopics {
		t.Fatalf("topics %v names %v", c.Topics, c.TopicNames)
	}
	b1, _ := c.Broker(1)
	b2, _ := c.Broker(2)
	if !b1.HasRack || b1.Rack != "r1" || b2.HasRack || b1.Epoch == 0 || len(b1.Endpoints) != 1 {
		t.Fatalf("brokers %+v", c.Brokers)
	}
	if c.TopicsVersion != 2 {
		t.Errorf("/brokers/topics version %d after two creations, want 2", c.TopicsVersion)
	}
}
