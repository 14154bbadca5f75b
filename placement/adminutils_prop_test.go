package placement

import (
	"testing"
)

// distChecks are the flags of Kafka's checkReplicaDistribution.
type distChecks struct {
	rackAware, leaders, replicas bool
}

// checkDistribution is RackAwareTest.checkReplicaDistribution.
func checkDistribution(t *testing.T, got [][]int32, rackOf map[int32]string, brokers, rf int, c distChecks) {
	t.Helper()
	leaders, replicas := map[int32]int{}, map[int32]int{}
	for p, reps := range got {
		seen, racks := map[int32]bool{}, map[string]bool{}
		for _, b := range reps {
			if seen[b] {
				t.Fatalf("partition %d repeats broker %d: %v", p, b, reps)
			}
			seen[b] = true
			racks[rackOf[b]] = true
			replicas[b]++
		}
		leaders[reps[0]]++
		if c.rackAware && len(racks) != rf {
			t.Fatalf("partition %d spans %d racks, want %d: %v", p, len(racks), rf, reps)
		}
	}
	if c.leaders {
		want := len(got) / brokers
		if len(leaders) != brokers {
			t.Fatalf("only %d brokers lead: %v", len(leaders), leaders)
		}
		for b, n := range leaders {
			if n != want {
				t.Fatalf("broker %d leads %d, want %d", b, n, want)
			}
		}
	}
	if c.replicas {
		want := len(got) * rf / brokers
		for b, n := range replicas {
			if n != want || len(replicas) != brokers {
				t.Fatalf("broker %d holds %d replicas, want %d (%v)", b, n, want, replicas)
			}
		}
	}
}

var r1r2r3 = map[int32]string{0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"}

// Reference §2.2: every upstream property table row, over every (start, shift) pair.
func TestAdminUtilsPropertiesAllStartShiftPairs(t *testing.T) {
	all := distChecks{true, true, true}
	for _, tc := range []struct {
		name   string
		racks  map[int32]string
		n, rf  int
		first  int
		checks distChecks
		extra  func(t *testing.T, got [][]int32, racks map[int32]string)
	}{
		{"WithRackAware", r1r2r3, 6, 3, 0, all, nil},
		{"WithUnevenReplicas", r1r2r3, 13, 3, 0, distChecks{rackAware: true}, nil},
		{"WithUnevenRacks", map[int32]string{0: "rack1", 1: "rack1", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"},
			12, 3, 0, distChecks{rackAware: true, leaders: true}, nil},
		{"With2ReplicasRackAware", r1r2r3, 12, 2, 0, all, nil},
		{"RackAwareExpansion", map[int32]string{6: "rack1", 7: "rack2", 8: "rack2", 9: "rack3", 10: "rack3", 11: "rack1"},
			12, 2, 12, all, nil},
		{"With2ReplicasRackAwareWith6Partitions", r1r2r3, 6, 2, 0, all, nil},
		{"With6PartitionsAnd3Brokers", map[int32]string{0: "rack1", 1: "rack2", 4: "rack3"}, 3, 2, 0, all, nil},
		{"LargeNumberPartitions", map[int32]string{0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3",
			5: "rack1", 6: "rack1", 7: "rack2", 8: "rack2", 9: "rack3", 10: "rack1", 11: "rack3"}, 96, 3, 0, all, nil},
		{"MoreReplicasThanRacks", map[int32]string{0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack2"},
			6, 5, 0, distChecks{}, racksExactly(3)},
		{"LessReplicasThanRacks", map[int32]string{0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack2"},
			6, 2, 0, distChecks{rackAware: true}, nil},
		{"SingleRack", map[int32]string{0: "rack1", 1: "rack1", 2: "rack1", 3: "rack1", 4: "rack1", 5: "rack1"},
			6, 3, 0, distChecks{leaders: true}, racksExactly(1)},
		{"SkipBrokerWithReplicaAlreadyAssigned", map[int32]string{0: "a", 1: "b", 2: "c", 3: "a", 4: "a"},
			6, 4, 0, distChecks{}, nil},
		{"RackAwareAutoTopicCreation", map[int32]string{0: "0", 1: "0", 2: "1", 3: "1"}, 8, 2, 0, all, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			brokers := racked(tc.racks)
			nb := len(brokers)
			for start := range nb {
				for shift := range nb {
					got := adminAssign(t, brokers, tc.n, tc.rf, start, shift, tc.first)
					if len(got) != tc.n {
						t.Fatalf("(%d,%d): %d partitions", start, shift, len(got))
					}
					checkDistribution(t, got, tc.racks, nb, tc.rf, tc.checks)
					if tc.extra != nil {
						tc.extra(t, got, tc.racks)
					}
				}
			}
		})
	}
}

func racksExactly(n int) func(t *testing.T, got [][]int32, racks map[int32]string) {
	return func(t *testing.T, got [][]int32, racks map[int32]string) {
		t.Helper()
		for p, reps := range got {
			seen := map[string]bool{}
			for _, b := range reps {
				seen[racks[b]] = true
			}
			if len(seen) != n {
				t.Fatalf("partition %d spans %d racks, want %d: %v", p, len(seen), n, reps)
			}
		}
	}
}

// The rack-unaware walk balances leaders and replicas for any (start, shift) when the
// partition count is a multiple of the broker count.
func TestAdminUtilsUnawareBalanceAllPairs(t *testing.T) {
	for nb := 1; nb <= 7; nb++ {
		var ids []int32
		for i := range nb {
			ids = append(ids, int32(10*i))
		}
		brokers := plain(ids...)
		for rf := 1; rf <= nb; rf++ {
			for start := range nb {
				for shift := range nb {
					got := adminAssign(t, brokers, 3*nb, rf, start, shift, 0)
					checkDistribution(t, got, nil, nb, rf, distChecks{leaders: true, replicas: true})
				}
			}
		}
	}
}
