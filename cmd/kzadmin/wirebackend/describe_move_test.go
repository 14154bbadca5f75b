package wirebackend

import "testing"

// TestMoveStillIn: a move read before the partition's replicas counts only
// while its removing replicas are still among them; once it has ended the
// replicas are the target's, which a waiting reassign takes as done.
func TestMoveStillIn(t *testing.T) {
	m := move{adding: []int32{3}, removing: []int32{2}}
	for _, tc := range []struct {
		replicas []int32
		want     bool
	}{
		{[]int32{3, 1, 2}, true}, // under way: target then original
		{[]int32{3, 1}, false},   // ended between the two reads
	} {
		if got := m.stillIn(tc.replicas); got != tc.want {
			t.Errorf("stillIn(%v) = %v, want %v", tc.replicas, got, tc.want)
		}
	}
	if !(move{adding: []int32{3}}).stillIn([]int32{1, 2, 3}) {
		t.Error("a move that only adds counts while it is listed")
	}
}
