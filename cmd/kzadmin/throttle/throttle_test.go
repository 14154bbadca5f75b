package throttle

import (
	"maps"
	"reflect"
	"strings"
	"testing"
)

func TestMoves(t *testing.T) {
	a0, a1, b0 := Partition{"a", 0}, Partition{"a", 1}, Partition{"b", 0}
	for _, tc := range []struct {
		name    string
		plan    map[Partition][]int32
		current map[Partition][]int32
		ongoing map[Partition]Ongoing
		want    map[Partition]Move
		err     string
	}{
		{
			name:    "a replica swapped: read from the current ones, copied to the new one",
			plan:    map[Partition][]int32{a0: {1, 4}},
			current: map[Partition][]int32{a0: {1, 2}},
			want:    map[Partition]Move{a0: {Sources: []int32{1, 2}, Destinations: []int32{4}}},
		},
		{
			name:    "a reorder moves no data",
			plan:    map[Partition][]int32{a0: {2, 1}},
			current: map[Partition][]int32{a0: {1, 2}},
			want:    map[Partition]Move{a0: {Sources: []int32{1, 2}}},
		},
		{
			name:    "a reassignment in progress elsewhere is throttled too",
			plan:    map[Partition][]int32{a0: {3}},
			current: map[Partition][]int32{a0: {1}},
			ongoing: map[Partition]Ongoing{b0: {Replicas: []int32{5, 6, 7}, Adding: []int32{7}}},
			want: map[Partition]Move{a0: {Sources: []int32{1}, Destinations: []int32{3}},
				b0: {Sources: []int32{5, 6}, Destinations: []int32{7}}},
		},
		{
			name:    "a planned partition being moved keeps the sources of its move",
			plan:    map[Partition][]int32{a1: {9, 8}},
			current: map[Partition][]int32{a1: {1, 2, 3}},
			ongoing: map[Partition]Ongoing{a1: {Replicas: []int32{1, 2, 3}, Adding: []int32{3}}},
			want:    map[Partition]Move{a1: {Sources: []int32{1, 2}, Destinations: []int32{8, 9}}},
		},
		{
			name: "a planned partition without replicas",
			plan: map[Partition][]int32{a0: {1}},
			err:  "a-0: cannot reassign a partition with no replicas",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Moves(tc.plan, tc.current, tc.ongoing)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, %v\nwant %v", got, err, tc.want)
			}
		})
	}
}

// TestTopicConfigs: items are "partition:broker", deduplicated and sorted
// as strings (so 10 before 2), as Kafka's tool writes them; a topic whose
// moves copy nothing still gets an empty follower list.
func TestTopicConfigs(t *testing.T) {
	moves := map[Partition]Move{
		{"a", 2}:  {Sources: []int32{1, 3}, Destinations: []int32{4}},
		{"a", 10}: {Sources: []int32{1}, Destinations: []int32{2}},
		{"b", 0}:  {Sources: []int32{5, 6}},
	}
	want := map[string]map[string]string{
		"a": {LeaderReplicasKey: "10:1,2:1,2:3", FollowerReplicasKey: "10:2,2:4"},
		"b": {LeaderReplicasKey: "0:5,0:6", FollowerReplicasKey: ""},
	}
	if got := TopicConfigs(moves); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if got := Brokers(moves); !reflect.DeepEqual(got, []int32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("brokers %v", got)
	}
	if got := BrokerConfigs(1024); !maps.Equal(got, map[string]string{LeaderRateKey: "1024", FollowerRateKey: "1024"}) {
		t.Fatalf("broker configs %v", got)
	}
}

// TestPlanEndToEnd: a plan moving every partition of a topic from brokers
// 1-3 to 4-6 throttles the old replicas as leaders, the new ones as
// followers, and all six brokers.
func TestPlanEndToEnd(t *testing.T) {
	plan, current := map[Partition][]int32{}, map[Partition][]int32{}
	for p := int32(0); p < 3; p++ {
		current[Partition{"t", p}] = []int32{1 + p%3, 1 + (p+1)%3}
		plan[Partition{"t", p}] = []int32{4 + p%3, 4 + (p+1)%3}
	}
	moves, err := Moves(plan, current, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := TopicConfigs(moves)["t"]
	if cfg[LeaderReplicasKey] != "0:1,0:2,1:2,1:3,2:1,2:3" || cfg[FollowerReplicasKey] != "0:4,0:5,1:5,1:6,2:4,2:6" {
		t.Fatalf("configs %v", cfg)
	}
	if b := Brokers(moves); len(b) != 6 {
		t.Fatalf("brokers %v", b)
	}
	if !strings.Contains(strings.Join(TopicKeys(), ","), LeaderReplicasKey) || len(BrokerKeys()) != 3 {
		t.Fatal("keys")
	}
}
