package wireapi

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// librdkafkaOut is what testdata/librdkafka_admin.py prints.
type librdkafkaOut struct {
	CreatedAgain string `json:"createdAgain"`
	ValidateOnly string `json:"validateOnly"`
	Configs      map[string]struct {
		Value   *string `json:"value"`
		Source  int     `json:"source"`
		Default bool    `json:"default"`
	} `json:"configs"`
	Elected   map[string]*string `json:"elected"`
	Described map[string]map[string]struct {
		Leader   int32   `json:"leader"`
		Replicas []int32 `json:"replicas"`
		ISR      []int32 `json:"isr"`
	} `json:"described"`
	Cluster struct {
		Controller int32   `json:"controller"`
		Nodes      []int32 `json:"nodes"`
		ClusterID  string  `json:"clusterId"`
	} `json:"cluster"`
	ControllerID int32    `json:"controllerId"`
	Listed       []string `json:"listed"`
}

// TestLibrdkafka drives librdkafka's admin client, through its Python
// binding confluent-kafka (create_topics, validate_only included,
// create_partitions, incremental_alter_configs, describe_configs,
// elect_leaders, describe_topics, describe_cluster, list_topics,
// delete_topics) against kzadmind over real brokers, bootstrapped from
// kzadmind's listener, and checks each result in ZooKeeper and as the
// brokers see it.
func TestLibrdkafka(t *testing.T) {
	c := sharedCluster(t)
	ctx := testCtx(t, 4*time.Minute)
	python := filepath.Join(clientsDir(t), "py", "bin", "python")
	requireFile(t, python)
	var out librdkafkaOut
	a, b := c.runClientScript(t, ctx, &out, python, "librdkafka_admin.py", "rdk")
	prefix := strings.TrimSuffix(a, "-a")

	if out.CreatedAgain != "TOPIC_ALREADY_EXISTS" || out.ValidateOnly != "ok" {
		t.Errorf("create_topics of an existing topic: %s (want TOPIC_ALREADY_EXISTS); validate_only: %s", out.CreatedAgain, out.ValidateOnly)
	}
	if c.zkTopicExists(t, ctx, prefix+"-dry") {
		t.Errorf("validate_only created %s-dry", prefix)
	}
	zt := c.expectTopic(t, ctx, a, topicWant{partitions: 5, rf: 2, config: map[string]string{"cleanup.policy": "compact"}, exactConfig: true})
	policy, retention := out.Configs["cleanup.policy"], out.Configs["retention.ms"]
	if policy.Value == nil || *policy.Value != "compact" || policy.Source != 1 {
		t.Errorf("describe_configs cleanup.policy: %+v, want compact from the topic's config (source 1)", policy)
	}
	if retention.Value == nil || *retention.Value != "604800000" || !retention.Default {
		t.Errorf("describe_configs retention.ms: %+v, want the default after the DELETE", retention)
	}
	c.compareTopicConfigs(t, ctx, a, map[string]string{"cleanup.policy": "compact"})
	// Every leader is already the preferred one: Kafka answers
	// ELECTION_NOT_NEEDED for the partition.
	if e := out.Elected[a+"-0"]; e == nil || *e != "ELECTION_NOT_NEEDED" {
		t.Errorf("elect_leaders %s-0: %v, want ELECTION_NOT_NEEDED", a, e)
	}
	for name, want := range map[string]int{a: 5, b: 1} {
		parts := out.Described[name]
		if len(parts) != want {
			t.Errorf("describe_topics %s: %d partitions, want %d", name, len(parts), want)
		}
		for id, p := range parts {
			if !slices.Contains(p.Replicas, p.Leader) || len(p.ISR) != len(p.Replicas) {
				t.Errorf("describe_topics %s-%s: %+v", name, id, p)
			}
		}
	}
	for _, p := range zt.Partitions {
		if got := out.Described[a][strconv.Itoa(int(p.ID))]; !slices.Equal(got.Replicas, p.Replicas) {
			t.Errorf("describe_topics %s-%d: replicas %v, ZooKeeper %v", a, p.ID, got.Replicas, p.Replicas)
		}
	}
	if out.Cluster.Controller != controllerID || out.ControllerID != controllerID ||
		!slices.Equal(out.Cluster.Nodes, []int32{1, 2, 3, controllerID}) || out.Cluster.ClusterID == "" {
		t.Errorf("describe_cluster %+v, list_topics controller %d", out.Cluster, out.ControllerID)
	}
	c.expectDeleted(t, ctx, b, nil)
	if slices.Contains(out.Listed, b) || !slices.Contains(out.Listed, a) {
		t.Errorf("list_topics after deleting %s: %v", b, out.Listed)
	}
}
