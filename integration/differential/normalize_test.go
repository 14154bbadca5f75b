package differential

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

var testRun = Run{Controller: 2, Addrs: map[string]int32{"127.0.0.1:9001": 1, "127.0.0.1:9002": 2}}

func TestNormalizeMetadata(t *testing.T) {
	r := kmsg.NewPtrMetadataResponse()
	r.ThrottleMillis, r.ClusterID, r.ControllerID = 50, kmsg.StringPtr("abc"), 2
	r.Brokers = []kmsg.MetadataResponseBroker{
		{NodeID: 2, Host: "127.0.0.1", Port: 9002},
		{NodeID: 1, Host: "127.0.0.1", Port: 9002}, // another node's address
		{NodeID: 3, Host: "10.0.0.1", Port: 9003},  // no node's address
	}
	r.Topics = []kmsg.MetadataResponseTopic{
		{Topic: kmsg.StringPtr("b"), TopicID: [16]byte{3: 9}, Partitions: []kmsg.MetadataResponseTopicPartition{{Partition: 1}, {Partition: 0}}},
		{Topic: kmsg.StringPtr("a")},
		{Topic: nil, TopicID: [16]byte{}},
	}
	Normalize(r, testRun)
	want := &kmsg.MetadataResponse{
		ClusterID:    kmsg.StringPtr(ClusterIDPlaceholder),
		ControllerID: ControllerPlaceholder,
		Brokers: []kmsg.MetadataResponseBroker{
			{NodeID: 1, Host: "<addr of 2>"}, {NodeID: 2, Host: "<addr of 2>"}, {NodeID: 3, Host: "10.0.0.1:9003"},
		},
		Topics: []kmsg.MetadataResponseTopic{
			{Topic: nil},
			{Topic: kmsg.StringPtr("a")},
			{Topic: kmsg.StringPtr("b"), TopicID: topicIDPlaceholder, Partitions: []kmsg.MetadataResponseTopicPartition{{Partition: 0}, {Partition: 1}}},
		},
		AuthorizedOperations: r.AuthorizedOperations,
	}
	if d := Diff(want, r); d != nil {
		t.Errorf("normalized metadata: %v", d)
	}
}

// Only the run's own controller becomes the placeholder: -1 or another
// node must stay visible.
func TestNormalizeKeepsOtherControllers(t *testing.T) {
	for _, id := range []int32{-1, 1, 3000} {
		r := kmsg.NewPtrDescribeClusterResponse()
		r.ControllerID = id
		Normalize(r, testRun)
		if r.ControllerID != id {
			t.Errorf("controller %d became %d", id, r.ControllerID)
		}
		if r.ClusterID != "" {
			t.Errorf("empty cluster id became %q", r.ClusterID)
		}
	}
	r := kmsg.NewPtrMetadataResponse()
	Normalize(r, testRun)
	if r.ClusterID != nil {
		t.Errorf("null cluster id became %q", *r.ClusterID)
	}
}

func TestNormalizeConfigAnswers(t *testing.T) {
	r := kmsg.NewPtrDescribeConfigsResponse()
	r.Resources = []kmsg.DescribeConfigsResponseResource{
		{ResourceName: "2", Configs: []kmsg.DescribeConfigsResponseResourceConfig{{Name: "z"}, {Name: "a"}}},
		{ResourceName: "7", ErrorMessage: kmsg.StringPtr("Unexpected broker id, expected 2 or empty string, but received 7")},
		{ResourceName: "x", ErrorMessage: kmsg.StringPtr("Unexpected broker id, expected 3, but received 22")},
	}
	Normalize(r, testRun)
	if got := r.Resources[0].ResourceName; got != ControllerName {
		t.Errorf("own id resource named %q", got)
	}
	if got := r.Resources[0].Configs; got[0].Name != "a" || got[1].Name != "z" {
		t.Errorf("configs not sorted: %v", Format(got))
	}
	if got, want := *r.Resources[1].ErrorMessage, "Unexpected broker id, expected <controller> or empty string, but received 7"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got, want := *r.Resources[2].ErrorMessage, "Unexpected broker id, expected 3, but received 22"; got != want {
		t.Errorf("message naming another node changed: %q", got)
	}
}

func TestNormalizeTopicIDsKeepZero(t *testing.T) {
	r := kmsg.NewPtrDeleteTopicsResponse()
	r.Topics = []kmsg.DeleteTopicsResponseTopic{{Topic: kmsg.StringPtr("a"), TopicID: [16]byte{1: 1}}, {Topic: kmsg.StringPtr("b")}}
	Normalize(r, testRun)
	if r.Topics[0].TopicID != topicIDPlaceholder || r.Topics[1].TopicID != [16]byte{} {
		t.Errorf("topic ids: %v", Format(r.Topics))
	}
}

func TestSortUnordered(t *testing.T) {
	r := kmsg.NewPtrElectLeadersResponse()
	r.Topics = []kmsg.ElectLeadersResponseTopic{
		{Topic: "b", Partitions: []kmsg.ElectLeadersResponseTopicPartition{{Partition: 2}, {Partition: 1}}},
		{Topic: "a"},
	}
	Normalize(r, testRun)
	if r.Topics[0].Topic != "a" || r.Topics[1].Partitions[0].Partition != 1 {
		t.Errorf("not sorted: %s", Format(r.Topics))
	}
	// CreateTopics keeps the request's order: Kafka answers in it.
	c := createResp(topicResult("b", 0, nil), topicResult("a", 0, nil))
	Normalize(c, testRun)
	if c.Topics[0].Topic != "b" {
		t.Errorf("CreateTopics reordered: %s", Format(c.Topics))
	}
}

func TestMaskPlacement(t *testing.T) {
	r := &kmsg.MetadataResponse{Topics: []kmsg.MetadataResponseTopic{
		{Topic: kmsg.StringPtr("auto"), Partitions: []kmsg.MetadataResponseTopicPartition{
			{Leader: 3, Replicas: []int32{3, 1}, ISR: []int32{3}, OfflineReplicas: []int32{}},
			{Leader: -1, Replicas: []int32{2}, ISR: nil},
		}},
		{Topic: kmsg.StringPtr("manual"), Partitions: []kmsg.MetadataResponseTopicPartition{{Leader: 3, Replicas: []int32{3}}}},
	}}
	MaskPlacement(r, []string{"auto"})
	want := &kmsg.MetadataResponse{Topics: []kmsg.MetadataResponseTopic{
		{Topic: kmsg.StringPtr("auto"), Partitions: []kmsg.MetadataResponseTopicPartition{
			{Leader: 0, Replicas: []int32{0, 0}, ISR: []int32{0}, OfflineReplicas: []int32{}},
			{Leader: -1, Replicas: []int32{0}, ISR: nil},
		}},
		{Topic: kmsg.StringPtr("manual"), Partitions: []kmsg.MetadataResponseTopicPartition{{Leader: 3, Replicas: []int32{3}}}},
	}}
	if d := Diff(want, r); d != nil {
		t.Errorf("masked: %v", d)
	}
}

func TestNamesOnly(t *testing.T) {
	r := &kmsg.MetadataResponse{Topics: []kmsg.MetadataResponseTopic{
		{Topic: kmsg.StringPtr("a"), ErrorCode: 5, IsInternal: true, Partitions: []kmsg.MetadataResponseTopicPartition{{}}},
	}}
	NamesOnly(r)
	if d := Diff(&kmsg.MetadataResponse{Topics: []kmsg.MetadataResponseTopic{{Topic: kmsg.StringPtr("a")}}}, r); d != nil {
		t.Errorf("names only: %v", d)
	}
}
