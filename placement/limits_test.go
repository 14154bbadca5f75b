package placement

import (
	"errors"
	"fmt"
	mrand "math/rand"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
)

// limitCase is a small cluster with limits, generated for testing/quick.
type limitCase struct {
	Brokers    []Broker
	Limits     Limits
	Partitions int
	RF         int
	Striped    bool
	Seed       uint64
}

func (limitCase) Generate(r *mrand.Rand, _ int) reflect.Value {
	c := limitCase{Striped: r.Intn(2) == 0, Seed: r.Uint64()}
	n := 1 + r.Intn(5)
	racks := r.Intn(4) // 0: no racks
	c.Limits = Limits{MaxBrokerPartitions: 1 + r.Intn(4), BrokerReplicas: map[int32]int{}}
	for i := range n {
		b := Broker{ID: int32(3 * i)}
		if racks > 0 {
			b.Rack, b.HasRack = fmt.Sprint(r.Intn(racks)), true
		}
		b.Fenced = c.Striped && r.Intn(3) == 0
		c.Brokers = append(c.Brokers, b)
		c.Limits.BrokerReplicas[b.ID] = r.Intn(c.Limits.MaxBrokerPartitions + 2)
	}
	if c.Striped {
		c.Brokers[r.Intn(n)].Fenced = false // the fenced-only case is a validation error
	}
	c.Partitions = 1 + r.Intn(4)
	c.RF = 1 + r.Intn(n)
	return reflect.ValueOf(c)
}

func (c limitCase) options() Options {
	o := Options{Limits: c.Limits, Rand: rand.New(rand.NewPCG(c.Seed, 1))}
	if c.Striped {
		o.Placer = Striped
	}
	return o
}

// bruteFeasible searches every placement: partitions of rf distinct brokers, each led by an
// unfenced broker (any broker for AdminUtils), within every broker's headroom.
func bruteFeasible(c limitCase) bool {
	n := len(c.Brokers)
	left := make([]int, n)
	for i, b := range c.Brokers {
		left[i] = c.Limits.headroom(b.ID)
	}
	var sets [][]int
	var pick func(from int, cur []int)
	pick = func(from int, cur []int) {
		if len(cur) == c.RF {
			sets = append(sets, append([]int(nil), cur...))
			return
		}
		for i := from; i < n; i++ {
			pick(i+1, append(cur, i))
		}
	}
	pick(0, nil)
	var place func(p, minSet int) bool
	place = func(p, minSet int) bool {
		if p == c.Partitions {
			return true
		}
		for si := minSet; si < len(sets); si++ { // partitions are interchangeable: multisets suffice
			s, fits, canLead := sets[si], true, !c.Striped
			for _, b := range s {
				fits = fits && left[b] > 0
				canLead = canLead || !c.Brokers[b].Fenced
			}
			if !fits || !canLead {
				continue
			}
			for _, b := range s {
				left[b]--
			}
			ok := place(p+1, si)
			for _, b := range s {
				left[b]++
			}
			if ok {
				return true
			}
		}
		return false
	}
	return place(0, 0)
}

// checkLimitedResult verifies a placement never exceeds a limit and is well formed.
func checkLimitedResult(c limitCase, got [][]int32) error {
	fenced := map[int32]bool{}
	for _, b := range c.Brokers {
		fenced[b.ID] = b.Fenced
	}
	added := map[int32]int{}
	if len(got) != c.Partitions {
		return fmt.Errorf("%d partitions, want %d", len(got), c.Partitions)
	}
	for p, reps := range got {
		if len(reps) != c.RF || !distinct(reps) {
			return fmt.Errorf("partition %d: bad replicas %v", p, reps)
		}
		if c.Striped && fenced[reps[0]] {
			return fmt.Errorf("partition %d led by fenced broker: %v", p, reps)
		}
		for _, id := range reps {
			added[id]++
		}
	}
	for id, n := range added {
		if c.Limits.BrokerReplicas[id]+n > c.Limits.MaxBrokerPartitions {
			return fmt.Errorf("broker %d exceeds its limit: %d + %d > %d", id, c.Limits.BrokerReplicas[id], n,
				c.Limits.MaxBrokerPartitions)
		}
	}
	return nil
}

// No placement exceeds a limit, and no request is refused when a valid placement exists:
// both checked against an exhaustive search, through testing/quick.
func TestLimitedPlacementMatchesBruteForce(t *testing.T) {
	var feasibleRuns, refusedRuns int
	prop := func(c limitCase) bool {
		want := bruteFeasible(c)
		left := make([]int, len(c.Brokers))
		var unfenced []bool
		for i, b := range c.Brokers {
			left[i] = c.Limits.headroom(b.ID)
			unfenced = append(unfenced, !c.Striped || !b.Fenced)
		}
		if feasible(left, unfenced, c.Partitions, c.RF) != want {
			t.Logf("feasible() disagrees with brute force (%v) on %+v", want, c)
			return false
		}
		got, err := AssignReplicas(c.Brokers, c.Partitions, c.RF, c.options())
		if !want {
			refusedRuns++
			var le *LimitError
			if !errors.As(err, &le) || le.Scope != ScopeBroker || le.Requested <= le.Limit ||
				le.Current != c.Limits.BrokerReplicas[le.BrokerID] {
				t.Logf("infeasible %+v: got %v, %v", c, got, err)
				return false
			}
			return true
		}
		feasibleRuns++
		if err != nil {
			t.Logf("refused a feasible request %+v: %v", c, err)
			return false
		}
		if err := checkLimitedResult(c, got); err != nil {
			t.Logf("%+v: %v", c, err)
			return false
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 4000, Rand: newMathRand(11)}); err != nil {
		t.Fatal(err)
	}
	if feasibleRuns < 500 || refusedRuns < 200 {
		t.Fatalf("too few of each kind: %d feasible, %d refused", feasibleRuns, refusedRuns)
	}
	t.Logf("%d feasible and %d infeasible requests checked", feasibleRuns, refusedRuns)
}

// Continuing a topic under limits obeys the same rules.
func TestLimitedAddPartitionsMatchesBruteForce(t *testing.T) {
	prop := func(c limitCase, existingRF uint8) bool {
		existing := [][]int32{make([]int32, 0, c.RF)}
		for _, b := range c.Brokers[:c.RF] {
			existing[0] = append(existing[0], b.ID)
		}
		got, err := AddPartitions(c.Brokers, existing, 1+c.Partitions, c.options())
		if !bruteFeasible(c) {
			var le *LimitError
			return errors.As(err, &le)
		}
		if err != nil {
			t.Logf("refused %+v: %v", c, err)
			return false
		}
		if err := checkLimitedResult(c, got); err != nil {
			t.Logf("%+v: %v", c, err)
			return false
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 1500, Rand: newMathRand(12)}); err != nil {
		t.Fatal(err)
	}
}

func TestLimitErrorMessages(t *testing.T) {
	b := &LimitError{Scope: ScopeBroker, BrokerID: 3, Limit: 1000, Current: 1000, Requested: 1001}
	c := &LimitError{Scope: ScopeCluster, Limit: 2000, Current: 1990, Requested: 2010}
	for err, want := range map[error]string{
		b: "WILL_EXCEED_PARTITION_LIMITS: broker 3 would host 1001 partition replicas, above max.broker.partitions=1000 (it hosts 1000 now)",
		c: "WILL_EXCEED_PARTITION_LIMITS: the cluster would have 2010 partitions, above max.partitions=2000 (it has 1990 now)",
	} {
		if err.Error() != want || !strings.HasPrefix(err.Error(), LimitErrorPrefix) {
			t.Errorf("message %q, want %q", err.Error(), want)
		}
	}
	if ScopeBroker.String() != "broker" || ScopeCluster.String() != "cluster" || LimitScope(9).String() != "LimitScope(9)" {
		t.Error("scope names")
	}
}

func TestClusterLimit(t *testing.T) {
	l := Limits{MaxPartitions: 100, Partitions: 98}
	for _, placer := range []Placer{AdminUtils, Striped} {
		opts := Options{Placer: placer, Limits: l}
		if _, err := AssignReplicas(plain(0, 1, 2), 2, 2, opts); err != nil {
			t.Fatalf("%d: at the limit: %v", placer, err)
		}
		_, err := AssignReplicas(plain(0, 1, 2), 3, 2, opts)
		want := &LimitError{Scope: ScopeCluster, Limit: 100, Current: 98, Requested: 101}
		var le *LimitError
		if !errors.As(err, &le) || *le != *want {
			t.Fatalf("%d: err = %v, want %v", placer, err, want)
		}
		_, err = AddPartitions(plain(0, 1, 2), [][]int32{{0, 1}}, 4, opts)
		if !errors.As(err, &le) || le.Requested != 101 {
			t.Fatalf("%d: add: err = %v", placer, err)
		}
	}
	// Kafka's own validation comes first.
	_, err := AssignReplicas(plain(0, 1, 2), 3, 4, Options{Limits: l})
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != InvalidReplicationFactor {
		t.Fatalf("validation must win over limits: %v", err)
	}
}

func newMathRand(seed int64) *mrand.Rand { return mrand.New(mrand.NewSource(seed)) }
