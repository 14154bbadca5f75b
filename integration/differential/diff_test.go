package differential

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDiffEqual(t *testing.T) {
	a, b := createResp(topicResult("x", 0, nil)), createResp(topicResult("x", 0, nil))
	if d := Diff(a, b); d != nil {
		t.Fatalf("equal answers differ: %v", d)
	}
}

func TestDiffLeaves(t *testing.T) {
	a := createResp(topicResult("x", 42, kmsg.StringPtr("Found multiple entries for this topic.")))
	b := createResp(topicResult("x", 0, nil))
	b.Topics[0].Configs = []kmsg.CreateTopicsResponseTopicConfig{} // [] differs from null
	want := []string{
		`Topics[x].ErrorCode: kafka=42(INVALID_REQUEST) kzadmind=0`,
		`Topics[x].ErrorMessage: kafka="Found multiple entries for this topic." kzadmind=null`,
		`Topics[x].Configs: kafka=null kzadmind=[]`,
	}
	checkDiff(t, Diff(a, b), want)
}

// Entries are matched by key: a missing one is one difference, and the
// entries both have are compared whatever their positions; a different
// order is reported once.
func TestDiffKeyedEntries(t *testing.T) {
	a := createResp(topicResult("a", 0, nil), topicResult("b", 0, nil), topicResult("c", 0, nil))
	b := createResp(topicResult("b", 3, nil), topicResult("a", 0, nil), topicResult("d", 0, nil))
	want := []string{
		`Topics[order]: kafka=[a b] kzadmind=[b a]`,
		`Topics[b].ErrorCode: kafka=0 kzadmind=3(UNKNOWN_TOPIC_OR_PARTITION)`,
		`Topics[c]: kafka=<present> kzadmind=<absent>`,
		`Topics[d]: kafka=<absent> kzadmind=<present>`,
	}
	checkDiff(t, Diff(a, b), want)
}

// A repeated key is told apart by its occurrence (as CreateTopics
// answers a duplicated entry twice).
func TestDiffDuplicateKeys(t *testing.T) {
	a := createResp(topicResult("x", 42, nil), topicResult("x", 42, nil))
	b := createResp(topicResult("x", 42, nil), topicResult("x", 0, nil))
	checkDiff(t, Diff(a, b), []string{`Topics[x#2].ErrorCode: kafka=42(INVALID_REQUEST) kzadmind=0`})
}

func TestDiffScalarListsAndIDs(t *testing.T) {
	a := &kmsg.MetadataResponse{Topics: []kmsg.MetadataResponseTopic{{Topic: kmsg.StringPtr("t"),
		Partitions: []kmsg.MetadataResponseTopicPartition{{Partition: 0, Replicas: []int32{1, 2}}}}}}
	b := &kmsg.MetadataResponse{Topics: []kmsg.MetadataResponseTopic{{Topic: kmsg.StringPtr("t"), TopicID: topicIDPlaceholder,
		Partitions: []kmsg.MetadataResponseTopicPartition{{Partition: 0, Replicas: []int32{2, 1}}}}}}
	want := []string{
		`Topics[t].TopicID: kafka=zero-id kzadmind=non-zero-id`,
		`Topics[t].Partitions[0].Replicas: kafka=[1 2] kzadmind=[2 1]`,
	}
	checkDiff(t, Diff(a, b), want)
}

// Structs without a key field are matched by index.
func TestDiffUnkeyedEntries(t *testing.T) {
	a := &kmsg.CreatePartitionsRequestTopic{Assignment: []kmsg.CreatePartitionsRequestTopicAssignment{{Replicas: []int32{1}}}}
	b := &kmsg.CreatePartitionsRequestTopic{Assignment: []kmsg.CreatePartitionsRequestTopicAssignment{{Replicas: []int32{2}}, {}}}
	want := []string{
		`Assignment.length: kafka=1 kzadmind=2`,
		`Assignment[0].Replicas: kafka=[1] kzadmind=[2]`,
	}
	checkDiff(t, Diff(a, b), want)
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"a/b: Topics[x].ErrorCode", "a/b: Topics[x].ErrorCode", true},
		{"a/b: Topics[x].ErrorCode", "a/b: Topics[y].ErrorCode", false},
		{"*: Brokers[3000]", "metadata/v1: Brokers[3000]", true},
		{"*: Brokers[3000]", "metadata/v1: Brokers[3000].Rack", false},
		{"*: Topics[t]*", "c/s: Topics[t].Partitions[0].Leader", true},
		{"*-metadata: B", "c/v12-after-metadata: B", true},
		{"*-metadata: B", "c/v12-after: B", false},
		{"a*b*c", "axxbyybzc", true},
		{"a*b*c", "axxcyyb", false},
		{"*", "", true},
		{"", "x", false},
	} {
		if got := Match(c.pattern, c.s); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}

func createResp(topics ...kmsg.CreateTopicsResponseTopic) *kmsg.CreateTopicsResponse {
	r := kmsg.NewPtrCreateTopicsResponse()
	r.Topics = topics
	return r
}

func topicResult(name string, code int16, msg *string) kmsg.CreateTopicsResponseTopic {
	t := kmsg.NewCreateTopicsResponseTopic()
	t.Topic, t.ErrorCode, t.ErrorMessage = name, code, msg
	return t
}

func checkDiff(t *testing.T, got []Difference, want []string) {
	t.Helper()
	lines := make([]string, len(got))
	for i, d := range got {
		lines[i] = d.String()
	}
	if !slices.Equal(lines, want) {
		t.Errorf("differences:\n got  %q\n want %q", lines, want)
	}
}
