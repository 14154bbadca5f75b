package placement

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// seedRacks is seed 004's cluster: racks 1-3 holding brokers 0-3, 4-7 and 8-11.
func seedRacks() []Broker {
	var out []Broker
	for id := range int32(12) {
		out = append(out, Broker{ID: id, Rack: fmt.Sprint(id/4 + 1), HasRack: true})
	}
	return out
}

// Seed 004's example: after P0=[6,8,2], P1=[9,3,7] the next rack is rack 1 (offset 0) and
// the racks continue at offsets 0, 0 and 2 (brokers 0, 4 and 10), with no random draws.
func TestSeedExampleOffsets(t *testing.T) {
	rec := &recordingRand{r: NewMockRandom(MockRandomSeed)}
	existing := [][]int32{{6, 8, 2}, {9, 3, 7}}
	rl := newRackList(rec, seedRacks(), existing)
	if len(rec.bounds) != 0 {
		t.Fatalf("continuation drew %v", rec.bounds)
	}
	if rl.offset != 0 {
		t.Errorf("rack offset = %d, want 0", rl.offset)
	}
	for i, want := range []int{0, 0, 2} {
		rk := rl.racks[rl.names[i]]
		if rk.key.name != fmt.Sprint(i+1) || rk.unfenced.nextOffset() != want {
			t.Errorf("rack %q offset = %d, want %d", rk.key.name, rk.unfenced.nextOffset(), want)
		}
	}
	got, err := AddPartitions(seedRacks(), existing, 4, stripedOpts(rec))
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int32{{0, 4, 10}, {5, 11, 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("P2, P3 = %v, want %v", got, want)
	}
}

func TestStripedContinuationFencedFirstBrokerKeepsRandom(t *testing.T) {
	brokers := seedRacks()
	brokers[9].Fenced = true // rack 3's most recent first broker is now fenced
	rl := newRackList(NewMockRandom(MockRandomSeed), brokers, [][]int32{{6, 8, 2}, {9, 3, 7}})
	cont := rl.inferStart([][]int32{{6, 8, 2}, {9, 3, 7}})
	if !cont.hasBroker[0] || !cont.hasBroker[1] || cont.hasBroker[2] || !cont.hasRack {
		t.Fatalf("inferred %+v: rack 3 must stay random, the others inferred", cont)
	}
	// Unknown brokers are skipped: with 9 gone, rack 3 is decided by 8 in P0.
	rl = newRackList(NewMockRandom(MockRandomSeed), slices.Delete(seedRacks(), 9, 10), nil)
	cont = rl.inferStart([][]int32{{6, 8, 2}, {9, 3, 7}})
	if cont.hasRack {
		t.Fatal("leader 9 is gone: the rack offset must be drawn")
	}
	if !cont.hasBroker[2] || cont.brokerOffset[2] != 0 { // rack 3 is now [8 10 11]: 8 was last used
		t.Fatalf("rack 3 inferred %+v", cont)
	}
}

type stripedCase struct {
	brokers []Broker
	rf      int
}

func stripedCases() []stripedCase {
	var cases []stripedCase
	shapes := [][]int{{4, 4, 4}, {3, 3, 3}, {2, 3, 4}, {5}, {1, 2, 2, 3}, {3, 3, 3, 3, 3, 3}}
	for _, shape := range shapes {
		var brokers []Broker
		id := int32(0)
		for r, size := range shape {
			for range size {
				brokers = append(brokers, Broker{ID: id, Rack: fmt.Sprintf("r%d", r), HasRack: len(shape) > 1})
				id++
			}
		}
		for rf := 1; rf <= min(4, len(brokers)); rf++ {
			cases = append(cases, stripedCase{brokers, rf})
		}
	}
	return cases
}

// Adding partitions in steps gives what one creation gives, within the first cycle (the
// placer reshuffles after numUnfenced partitions, drawing fresh randomness), provided every
// rack already holds a replica (an untouched rack has nothing to continue from).
func TestStripedStepsEqualOneCreation(t *testing.T) {
	checked := 0
	for ci, c := range stripedCases() {
		total := len(c.brokers)
		for seed := range uint64(6) {
			all, err := AssignReplicas(c.brokers, total, c.rf, stripedOpts(NewMockRandom(seed)))
			if err != nil {
				t.Fatal(err)
			}
			for _, steps := range splits(total, seed) {
				got, err := AssignReplicas(c.brokers, steps[0], c.rf, stripedOpts(NewMockRandom(seed)))
				if err != nil {
					t.Fatal(err)
				}
				for _, upto := range steps[1:] {
					if !touchesAllRacks(c.brokers, got) {
						break
					}
					rec := &recordingRand{r: NewMockRandom(99)}
					more, err := AddPartitions(c.brokers, got, upto, stripedOpts(rec))
					if err != nil {
						t.Fatal(err)
					}
					if len(rec.bounds) != 0 {
						t.Fatalf("case %d: continuation drew %v", ci, rec.bounds)
					}
					got = append(got, more...)
					if !reflect.DeepEqual(got, all[:upto]) {
						t.Fatalf("case %d seed %d steps %v: %v\nwant %v", ci, seed, steps, got, all[:upto])
					}
					checked++
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d step comparisons ran", checked)
	}
}

// splits returns a few ways of reaching total in increasing steps.
func splits(total int, seed uint64) [][]int {
	out := [][]int{{1, total}, {total - 1, total}}
	r := seeded(seed)
	var s []int
	for at := 1 + r.IntN(2); at < total; at += 1 + r.IntN(3) {
		s = append(s, at)
	}
	out = append(out, append(s, total))
	each := []int{}
	for i := 1; i <= total; i++ {
		each = append(each, i)
	}
	return append(out, each)
}

func touchesAllRacks(brokers []Broker, parts [][]int32) bool {
	rackOf := map[int32]rackKey{}
	racks := map[rackKey]bool{}
	for _, b := range brokers {
		rackOf[b.ID] = b.rackKey()
		racks[b.rackKey()] = false
	}
	for _, reps := range parts {
		for _, id := range reps {
			racks[rackOf[id]] = true
		}
	}
	for _, seen := range racks {
		if !seen {
			return false
		}
	}
	return true
}

func adminCases() [][]Broker {
	return [][]Broker{
		plain(0, 1, 2, 3, 4),
		plain(3, 7, 9),
		racked(stdRacks),
		racked(map[int32]string{0: "a", 1: "a", 2: "b", 3: "c", 4: "c", 5: "a", 6: "b"}),
		racked(map[int32]string{0: "x", 1: "y", 2: "y", 3: "y"}),
		seedRacks(),
	}
}

// AdminUtils: create m partitions with any pinned (start, shift), then add in steps with
// continuation. The result is always exactly one creation of all partitions with some
// (start, shift), and the pinned pair's whenever the first step's partitions determine it.
// (In the rack-aware walk, two shifts can produce the same first partitions; nothing in the
// existing layout can tell them apart.)
func TestAdminUtilsStepsEqualOneCreation(t *testing.T) {
	exact, runs := 0, 0
	for ci, brokers := range adminCases() {
		n := len(brokers)
		for rf := 1; rf <= min(3, n); rf++ {
			total := 2*n + 3
			idx := newLayoutIndex()
			for start := range n {
				for shift := range n {
					l, _ := AssignReplicas(brokers, total, rf, Options{Start: &Start{start, shift}})
					idx.add(l)
				}
			}
			for start := range n {
				for shift := range n {
					pin := Options{Start: &Start{start, shift}}
					all, _ := AssignReplicas(brokers, total, rf, pin)
					for _, steps := range splits(total, uint64(start*n+shift)) {
						got, _ := AssignReplicas(brokers, steps[0], rf, pin)
						for _, upto := range steps[1:] {
							rec := &recordingRand{r: seeded(1)}
							more, err := AddPartitions(brokers, got, upto, Options{Rand: rec})
							if err != nil {
								t.Fatal(err)
							}
							if len(rec.bounds) != 0 {
								t.Fatalf("case %d: continuation drew %v", ci, rec.bounds)
							}
							got = append(got, more...)
						}
						if !idx.full[fmt.Sprint(got)] {
							t.Fatalf("case %d rf %d (%d,%d) steps %v:\n%v\nis no single creation; (%d,%d) gives %v",
								ci, rf, start, shift, steps, got, start, shift, all)
						}
						same := reflect.DeepEqual(got, all)
						if idx.unambiguous(all[:steps[0]]) && !same {
							t.Fatalf("case %d rf %d (%d,%d) steps %v: unambiguous prefix but %v", ci, rf, start, shift, steps, got)
						}
						exact += b2i(same)
						runs++
					}
				}
			}
		}
	}
	t.Logf("%d of %d stepwise layouts equal the pinned creation exactly; the others equal another (start, shift)", exact, runs)
}

// layoutIndex holds every single-creation layout of one cluster, by key.
type layoutIndex struct {
	layouts  [][][]int32
	full     map[string]bool
	byPrefix map[int]map[string]string // prefix length -> prefix key -> full key, or "*" if several
}

func newLayoutIndex() *layoutIndex {
	return &layoutIndex{full: map[string]bool{}, byPrefix: map[int]map[string]string{}}
}

func (x *layoutIndex) add(l [][]int32) {
	x.layouts = append(x.layouts, l)
	x.full[fmt.Sprint(l)] = true
}

// unambiguous reports whether every layout that starts with prefix is the same layout.
func (x *layoutIndex) unambiguous(prefix [][]int32) bool {
	m := len(prefix)
	if x.byPrefix[m] == nil {
		x.byPrefix[m] = map[string]string{}
		for _, l := range x.layouts {
			pk, fk := fmt.Sprint(l[:m]), fmt.Sprint(l)
			if old, ok := x.byPrefix[m][pk]; ok && old != fk {
				fk = "*"
			}
			x.byPrefix[m][pk] = fk
		}
	}
	return x.byPrefix[m][fmt.Sprint(prefix)] != "*"
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
