package placement

import (
	mrand "math/rand"
	"reflect"
	"slices"
	"sort"
	"testing"
	"testing/quick"
)

// naiveAdmin is reference §1.4/§1.6 transcribed literally: maps, sets, unbounded loops.
func naiveAdmin(rackOf map[int32]string, aware bool, n, rf, start, shift, startPartition int) map[int][]int32 {
	list := naiveWalkList(rackOf, aware)
	numRacks := map[string]bool{}
	for _, r := range rackOf {
		numRacks[r] = true
	}
	nb := len(list)
	ri := func(first, shift, j int) int { return (first + 1 + (shift+j)%(nb-1)) % nb }
	out := map[int][]int32{}
	p := max(0, startPartition)
	for range n {
		if p > 0 && p%nb == 0 {
			shift++
		}
		f := (p + start) % nb
		reps := []int32{list[f]}
		if !aware {
			for j := range rf - 1 {
				reps = append(reps, list[ri(f, shift, j)])
			}
		} else {
			usedRacks, usedBrokers := map[string]bool{rackOf[list[f]]: true}, map[int32]bool{list[f]: true}
			k := 0
			for range rf - 1 {
				for {
					b := list[ri(f, shift*len(numRacks), k)]
					k++
					rackOK := !usedRacks[rackOf[b]] || len(usedRacks) == len(numRacks)
					if rackOK && !usedBrokers[b] {
						reps, usedRacks[rackOf[b]], usedBrokers[b] = append(reps, b), true, true
						break
					}
				}
			}
		}
		out[p] = reps
		p++
	}
	return out
}

// naiveWalkList is the id-sorted list, or reference §1.5's rack-alternated list.
func naiveWalkList(rackOf map[int32]string, aware bool) []int32 {
	var list []int32
	if !aware {
		for id := range rackOf {
			list = append(list, id)
		}
		slices.Sort(list)
		return list
	}
	byRack := map[string][]int32{}
	for id, r := range rackOf {
		byRack[r] = append(byRack[r], id)
	}
	var racks []string
	for r, ids := range byRack {
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		racks = append(racks, r)
	}
	sort.Strings(racks)
	for i := 0; len(list) < len(rackOf); i++ {
		if ids := byRack[racks[i%len(racks)]]; len(ids) > 0 {
			list, byRack[racks[i%len(racks)]] = append(list, ids[0]), ids[1:]
		}
	}
	return list
}

type adminInput struct {
	Racks               map[int32]string
	Aware               bool
	N, RF, Start, Shift int
	StartPartition      int
}

func (adminInput) Generate(r *mrand.Rand, _ int) reflect.Value {
	in := adminInput{Racks: map[int32]string{}, Aware: r.Intn(2) == 0}
	nb := 1 + r.Intn(9)
	for len(in.Racks) < nb {
		in.Racks[int32(r.Intn(50))] = string(rune('a' + r.Intn(4)))
	}
	in.N, in.RF = 1+r.Intn(30), 1+r.Intn(nb)
	in.Start, in.Shift, in.StartPartition = r.Intn(nb), r.Intn(nb), r.Intn(3*nb)-1
	return reflect.ValueOf(in)
}

// The AdminUtils placer agrees with the literal transcription on random inputs.
func TestAdminUtilsMatchesNaive(t *testing.T) {
	prop := func(in adminInput) bool {
		var brokers []Broker
		for id, r := range in.Racks {
			brokers = append(brokers, Broker{ID: id, Rack: r, HasRack: in.Aware})
		}
		want := naiveAdmin(in.Racks, in.Aware, in.N, in.RF, in.Start, in.Shift, in.StartPartition)
		got := adminAssign(t, brokers, in.N, in.RF, in.Start, in.Shift, max(0, in.StartPartition))
		for i, reps := range got {
			if !slices.Equal(reps, want[max(0, in.StartPartition)+i]) {
				t.Logf("%+v: partition %d = %v, naive %v", in, i, reps, want[max(0, in.StartPartition)+i])
				return false
			}
		}
		return len(got) == len(want)
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 3000, Rand: mrand.New(mrand.NewSource(5))}); err != nil {
		t.Fatal(err)
	}
}

// naiveStriped is reference §3 transcribed literally, with maps keyed by rack name.
type naiveList struct {
	ids                  []int32
	index, offset, epoch int
}

func (l *naiveList) next(e int) int32 {
	if len(l.ids) == 0 {
		return -1
	}
	if e != l.epoch {
		l.epoch, l.index, l.offset = e, 0, (l.offset+1)%len(l.ids)
	}
	if l.index >= len(l.ids) {
		return -1
	}
	l.index++
	return l.ids[(l.index-1+l.offset)%len(l.ids)]
}

type naiveRack struct{ fenced, unfenced *naiveList }

// naiveState is RackList: racks by name, rackNames, HashMap order, counts.
type naiveState struct {
	racks            map[rackKey]*naiveRack
	names, hashOrder []rackKey
	unfenced         int
	offset, epoch    int
}

func newNaiveState(rnd Rand, brokers []Broker) *naiveState {
	st := &naiveState{racks: map[rackKey]*naiveRack{}}
	var insertion []rackKey
	for _, b := range brokers {
		k := b.rackKey()
		if st.racks[k] == nil {
			st.racks[k] = &naiveRack{&naiveList{}, &naiveList{}}
			st.names, insertion = append(st.names, k), append(insertion, k)
		}
		if b.Fenced {
			st.racks[k].fenced.ids = append(st.racks[k].fenced.ids, b.ID)
		} else {
			st.racks[k].unfenced.ids = append(st.racks[k].unfenced.ids, b.ID)
			st.unfenced++
		}
	}
	for _, i := range javaHashMapOrder(insertion) {
		st.hashOrder = append(st.hashOrder, insertion[i])
	}
	for _, k := range st.hashOrder {
		for _, l := range []*naiveList{st.racks[k].fenced, st.racks[k].unfenced} {
			if len(l.ids) > 0 {
				slices.Sort(l.ids)
				l.offset = rnd.IntN(len(l.ids))
			}
		}
	}
	sort.SliceStable(st.names, func(i, j int) bool { return compareRackKeys(st.names[i], st.names[j]) < 0 })
	st.offset = rnd.IntN(len(st.names))
	return st
}

func (st *naiveState) reshuffle(rnd Rand) {
	perm := make([]int, len(st.names))
	for i := range perm {
		perm[i] = i
	}
	javaShuffle(perm, rnd)
	shuffled := make([]rackKey, len(st.names))
	for i, j := range perm {
		shuffled[i] = st.names[j]
	}
	st.names = shuffled
	for _, k := range st.hashOrder {
		shuffleIDs(st.racks[k].fenced.ids, rnd)
		shuffleIDs(st.racks[k].unfenced.ids, rnd)
	}
	st.epoch = 0
}

func naiveStriped(rnd Rand, brokers []Broker, n, rf int) [][]int32 {
	st := newNaiveState(rnd, brokers)
	var out [][]int32
	for range n {
		if st.epoch == st.unfenced && st.unfenced > 1 {
			st.reshuffle(rnd)
		}
		if st.offset == len(st.names) {
			st.offset = 0
		}
		first := st.offset
		reps := []int32{}
		for {
			if x := st.racks[st.names[first]].unfenced.next(st.epoch); x >= 0 {
				reps = append(reps, x)
				break
			}
			first = (first + 1) % len(st.names)
		}
		ri := st.offset
		for range rf - 1 {
			var res int32 = -1
			for res < 0 {
				if ri == first {
					first = -1
				} else if res = st.racks[st.names[ri]].unfenced.next(st.epoch); res < 0 {
					res = st.racks[st.names[ri]].fenced.next(st.epoch)
				}
				ri = (ri + 1) % len(st.names)
			}
			reps = append(reps, res)
		}
		out = append(out, reps)
		st.epoch++
		st.offset++
	}
	return out
}

func shuffleIDs(ids []int32, rnd Rand) {
	for i := len(ids); i > 1; i-- {
		j := rnd.IntN(i)
		ids[i-1], ids[j] = ids[j], ids[i-1]
	}
}

type stripedInput struct {
	Brokers []Broker
	N, RF   int
	Seed    uint64
}

func (stripedInput) Generate(r *mrand.Rand, _ int) reflect.Value {
	in := stripedInput{Seed: r.Uint64()}
	nb := 1 + r.Intn(10)
	for i := range nb {
		b := Broker{ID: int32(nb - i), Fenced: r.Intn(4) == 0}
		if r.Intn(5) > 0 {
			b.Rack, b.HasRack = []string{"rack1", "rack2", "rack3", "a", "q"}[r.Intn(5)], true
		}
		in.Brokers = append(in.Brokers, b)
	}
	in.Brokers[r.Intn(nb)].Fenced = false
	in.N, in.RF = 1+r.Intn(40), 1+r.Intn(nb)
	return reflect.ValueOf(in)
}

// The striped placer agrees with the literal transcription, reshuffles included, when both
// draw from MockRandom with the same seed.
func TestStripedMatchesNaive(t *testing.T) {
	prop := func(in stripedInput) bool {
		want := naiveStriped(NewMockRandom(in.Seed), in.Brokers, in.N, in.RF)
		got, err := AssignReplicas(in.Brokers, in.N, in.RF, stripedOpts(NewMockRandom(in.Seed)))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Logf("%+v:\n got %v %v\nwant %v", in, got, err, want)
			return false
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 3000, Rand: mrand.New(mrand.NewSource(6))}); err != nil {
		t.Fatal(err)
	}
}
