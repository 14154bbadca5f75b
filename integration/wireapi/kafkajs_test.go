package wireapi

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// kafkajsOut is what testdata/kafkajs_admin.js prints.
type kafkajsOut struct {
	Created      bool `json:"created"`
	CreatedAgain bool `json:"createdAgain"`
	Cluster      struct {
		Brokers []struct {
			NodeID int32 `json:"nodeId"`
		} `json:"brokers"`
		Controller int32  `json:"controller"`
		ClusterID  string `json:"clusterId"`
	} `json:"cluster"`
	Metadata struct {
		Topics []struct {
			Name       string `json:"name"`
			Partitions []struct {
				PartitionID int32   `json:"partitionId"`
				Leader      int32   `json:"leader"`
				Replicas    []int32 `json:"replicas"`
				ISR         []int32 `json:"isr"`
			} `json:"partitions"`
		} `json:"topics"`
	} `json:"metadata"`
	Configs struct {
		Resources []struct {
			ErrorCode     int16 `json:"errorCode"`
			ConfigEntries []struct {
				ConfigName  string `json:"configName"`
				ConfigValue string `json:"configValue"`
				IsDefault   bool   `json:"isDefault"`
			} `json:"configEntries"`
		} `json:"resources"`
	} `json:"configs"`
	ReassignTarget []int32 `json:"reassignTarget"`
	Reassignments  struct {
		Topics []struct {
			Topic      string `json:"name"`
			Partitions []struct {
				Partition int32   `json:"partition"`
				Replicas  []int32 `json:"replicas"`
			} `json:"partitions"`
		} `json:"topics"`
	} `json:"reassignments"`
	Listed []string `json:"listed"`
}

// TestKafkaJS drives KafkaJS's admin client (createTopics with and
// without counts, describeCluster, createPartitions, fetchTopicMetadata,
// alterPartitionReassignments, listPartitionReassignments, alterConfigs,
// describeConfigs, deleteTopics, listTopics) against
// kzadmind over real brokers, bootstrapped from kzadmind's listener, and
// checks each result in ZooKeeper and as the brokers see it.
func TestKafkaJS(t *testing.T) {
	c := sharedCluster(t)
	ctx := testCtx(t, 4*time.Minute)
	modules := filepath.Join(clientsDir(t), "node", "node_modules")
	requireFile(t, filepath.Join(modules, "kafkajs", "package.json"))
	t.Setenv("NODE_PATH", modules)
	var out kafkajsOut
	a, b := c.runClientScript(t, ctx, &out, "node", "kafkajs_admin.js", "kjs")

	if !out.Created || out.CreatedAgain {
		t.Errorf("createTopics answered %v, then %v for an existing topic; want true, then false", out.Created, out.CreatedAgain)
	}
	var ids []int32
	for _, b := range out.Cluster.Brokers {
		ids = append(ids, b.NodeID)
	}
	slices.Sort(ids)
	if out.Cluster.Controller != controllerID || !slices.Equal(ids, []int32{1, 2, 3, controllerID}) || out.Cluster.ClusterID == "" {
		t.Errorf("describeCluster: controller %d, brokers %v, cluster id %q", out.Cluster.Controller, ids, out.Cluster.ClusterID)
	}
	kafkajsReassigned(t, ctx, c, a, out)
	c.expectTopic(t, ctx, a, topicWant{partitions: 5, rf: 2, config: map[string]string{"cleanup.policy": "compact"}, exactConfig: true})
	// The counts KafkaJS left out for b (-1) are the broker defaults:
	// one partition.
	for _, tm := range out.Metadata.Topics {
		want := map[string]int{a: 5, b: 1}[tm.Name]
		if len(tm.Partitions) != want {
			t.Errorf("fetchTopicMetadata %s: %d partitions, want %d", tm.Name, len(tm.Partitions), want)
		}
		for _, p := range tm.Partitions {
			if !slices.Contains(p.Replicas, p.Leader) || len(p.ISR) != len(p.Replicas) {
				t.Errorf("fetchTopicMetadata %s-%d: leader %d, replicas %v, ISR %v", tm.Name, p.PartitionID, p.Leader, p.Replicas, p.ISR)
			}
		}
	}
	if n := len(out.Metadata.Topics); n != 2 {
		t.Errorf("fetchTopicMetadata: %d topics, want 2", n)
	}
	if len(out.Configs.Resources) != 1 || out.Configs.Resources[0].ErrorCode != 0 {
		t.Fatalf("describeConfigs: %+v", out.Configs)
	}
	got := map[string]string{}
	for _, e := range out.Configs.Resources[0].ConfigEntries {
		got[e.ConfigName] = e.ConfigValue
		if e.ConfigName == "retention.ms" && !e.IsDefault {
			t.Errorf("describeConfigs: retention.ms is not the default after alterConfigs replaced the set")
		}
	}
	if got["cleanup.policy"] != "compact" || got["retention.ms"] != "604800000" {
		t.Errorf("describeConfigs: %v, want cleanup.policy=compact and retention.ms at its default", got)
	}
	c.compareTopicConfigs(t, ctx, a, map[string]string{"cleanup.policy": "compact"})
	c.expectDeleted(t, ctx, b, nil)
	if slices.Contains(out.Listed, b) || !slices.Contains(out.Listed, a) {
		t.Errorf("listTopics after deleting %s: %v", b, out.Listed)
	}
}

// kafkajsReassigned checks the reassignment the script asked for: listed
// while in progress (if it was still), and carried out in ZooKeeper.
func kafkajsReassigned(t *testing.T, ctx context.Context, c *cluster, topic string, out kafkajsOut) {
	t.Helper()
	for _, rt := range out.Reassignments.Topics {
		for _, p := range rt.Partitions {
			if rt.Topic != topic || p.Partition != 0 {
				t.Errorf("listPartitionReassignments lists %s-%d, which nobody moved", rt.Topic, p.Partition)
			}
		}
	}
	if len(out.ReassignTarget) != 2 {
		t.Fatalf("reassignment target %v", out.ReassignTarget)
	}
	err := poll(ctx, settleTimeout, func() error {
		zt, err := c.zkTopic(ctx, topic)
		if err != nil || zt == nil || len(zt.Partitions) == 0 {
			return fmt.Errorf("read %s: %v", topic, err)
		}
		p := zt.Partitions[0]
		if !slices.Equal(p.Replicas, out.ReassignTarget) || len(p.Adding)+len(p.Removing) > 0 {
			return fmt.Errorf("partition 0: replicas %v (adding %v, removing %v), want %v", p.Replicas, p.Adding, p.Removing, out.ReassignTarget)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("alterPartitionReassignments: %v", err)
	}
}
