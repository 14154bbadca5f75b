package placement

import "fmt"

// Placer selects the placement algorithm.
type Placer int

const (
	// AdminUtils is ZK-mode Kafka's AdminUtils.assignReplicasToBrokers (the zero value).
	AdminUtils Placer = iota
	// Striped is KRaft's StripedReplicaPlacer.
	Striped
)

// Start pins the AdminUtils start index and shift that Kafka otherwise draws at random.
// Kafka's fixedStartIndex k is Start{Index: k, Shift: k}; see FixedStart.
type Start struct {
	Index, Shift int
}

// FixedStart is Kafka's fixedStartIndex: the same value for the start index and the shift.
func FixedStart(index int) *Start { return &Start{Index: index, Shift: index} }

// Options tune a placement. The zero value is AdminUtils placement with math/rand/v2, no
// limits and, for AddPartitions, continuation.
type Options struct {
	Placer Placer
	// Rand is the random source; nil uses math/rand/v2. The controller should keep one source
	// for all calls, as Kafka keeps one Random per placer.
	Rand Rand
	// Start pins the AdminUtils start index and shift (ignored by Striped). With it the output
	// is exactly Kafka's for the same inputs.
	Start *Start
	// KafkaAddRule makes AddPartitions do what Kafka 3.9 does instead of continuing the
	// existing layout: AdminUtils restarts from partition 0's leader (AdminZkClient's rule),
	// Striped ignores the existing partitions (KAFKA-14437 was never merged).
	KafkaAddRule bool
	// Limits are the KIP-578 partition limits to honour; the zero value is unlimited.
	Limits Limits
	// Topic is used only in error messages.
	Topic string
}

// AssignReplicas places a new topic's partitions: element i of the result is partition i's
// replica list, and its first replica is the preferred leader.
//
// AdminUtils sorts brokers by id and places rack-aware when every broker has a rack,
// rack-unaware when none has; it validates in Kafka's order with Kafka's messages. Striped
// takes brokers as given (usable brokers: registered and not shutting down) and, like
// Kafka's placer, returns no partitions without error when partitions <= 0.
func AssignReplicas(brokers []Broker, partitions, rf int, opts Options) ([][]int32, error) {
	if err := checkInput(brokers, opts); err != nil {
		return nil, err
	}
	if opts.Placer == Striped {
		return placeStriped(brokers, nil, partitions, rf, opts)
	}
	return placeAdmin(brokers, nil, partitions, rf, opts)
}

// AddPartitions places the partitions that take a topic from len(existing) to total
// partitions; element i of the result is partition len(existing)+i. existing holds the
// current replica lists by partition id, and its partition 0 sets the replication factor.
// Unless opts.Start or opts.KafkaAddRule says otherwise, the new partitions continue the
// existing layout (see Continuation in the package doc).
func AddPartitions(brokers []Broker, existing [][]int32, total int, opts Options) ([][]int32, error) {
	if err := checkInput(brokers, opts); err != nil {
		return nil, err
	}
	m := len(existing)
	if m == 0 {
		// A Scala Map prints as Map(...): this is AdminZkClient's message for an empty one.
		return nil, errorf(AdminOperation, "Unexpected existing replica assignment for topic '%s', "+
			"partition id 0 is missing. Assignment: Map()", opts.Topic)
	}
	if err := checkIncrease(opts, m, total); err != nil {
		return nil, err
	}
	rf := len(existing[0])
	if opts.Placer == Striped {
		if opts.KafkaAddRule {
			existing = nil
		}
		return placeStriped(brokers, existing, total-m, rf, opts)
	}
	return placeAdmin(brokers, existing, total-m, rf, opts)
}

func checkInput(brokers []Broker, opts Options) error {
	if opts.Placer != AdminUtils && opts.Placer != Striped {
		return fmt.Errorf("placement: unknown placer %d", opts.Placer)
	}
	if id, dup := duplicateID(brokers); dup {
		return errorf(AdminOperation, "Broker %d appears more than once in the broker list.", id)
	}
	return nil
}

// checkIncrease rejects a partition count that is not an increase, with ZK Kafka's message
// for AdminUtils and the KRaft controller's for Striped.
func checkIncrease(opts Options, current, total int) error {
	if total > current {
		return nil
	}
	switch {
	case opts.Placer != Striped:
		return errorf(InvalidPartitions, "The number of partitions for a topic can only be increased. "+
			"Topic %s currently has %d partitions, %d would not be an increase.", opts.Topic, current, total)
	case total == current:
		return errorf(InvalidPartitions, "Topic already has %d partition(s).", current)
	default:
		return errorf(InvalidPartitions, "The topic %s currently has %d partition(s); %d would not be an increase.",
			opts.Topic, current, total)
	}
}

// validateAdmin is AdminUtils' check order (reference §1.2); it reports whether placement is
// rack-aware.
func validateAdmin(brokers []Broker, partitions, rf int) (bool, error) {
	switch {
	case partitions <= 0:
		return false, errorf(InvalidPartitions, "Number of partitions must be larger than 0.")
	case rf <= 0:
		return false, errorf(InvalidReplicationFactor, "Replication factor must be larger than 0.")
	case rf > len(brokers):
		return false, errorf(InvalidReplicationFactor, "Replication factor: %d larger than available brokers: %d.",
			rf, len(brokers))
	}
	withRack := 0
	for _, b := range brokers {
		if b.HasRack {
			withRack++
		}
	}
	if withRack > 0 && withRack < len(brokers) {
		return false, errorf(AdminOperation, "Not all brokers have rack information for replica rack aware assignment.")
	}
	return withRack > 0, nil
}

// placeAdmin runs AdminUtils for count partitions after the existing ones (nil for a new
// topic).
func placeAdmin(brokers []Broker, existing [][]int32, count, rf int, opts Options) ([][]int32, error) {
	aware, err := validateAdmin(brokers, count, rf)
	if err != nil {
		return nil, err
	}
	sorted := sortedByID(brokers)
	a := newAdminRun(sorted, aware)
	a.first = len(existing)
	a.resolveStart(sorted, existing, rf, opts)
	if err := opts.Limits.checkCluster(count); err != nil {
		return nil, err
	}
	g, ok := opts.Limits.guardFor(a.list, nil, count, rf)
	if !ok {
		return nil, infeasible(opts.Limits, func(g *guard) ([][]int32, error) { return a.assign(count, rf, g) },
			len(a.list), nil, count, rf)
	}
	return a.assign(count, rf, g)
}

// resolveStart sets start and shift: pinned, Kafka's add rule, continuation, or random (two
// independent draws, start first, as Kafka makes them).
func (a *adminRun) resolveStart(sorted []Broker, existing [][]int32, rf int, opts Options) {
	n := len(a.list)
	var st adminStart
	switch {
	case opts.Start != nil:
		st = adminStart{hasStart: true, hasShift: true, start: opts.Start.Index, shift: opts.Start.Shift}
	case len(existing) > 0 && opts.KafkaAddRule:
		i := kafkaAddStart(sorted, existing)
		st = adminStart{hasStart: true, hasShift: true, start: i, shift: i}
	case len(existing) > 0:
		st = a.inferStart(existing, rf)
	}
	rnd := randOrDefault(opts.Rand)
	if !st.hasStart {
		st.start = rnd.IntN(n)
	}
	if !st.hasShift {
		st.shift = rnd.IntN(n)
	}
	// Only shift mod n-1 matters (also times the rack count), so normalising keeps Kafka's
	// output and rules out overflow and negative remainders.
	a.start, a.shift = mod(st.start, n), mod(st.shift, n-1)
}

// placeStriped runs the striped placer for count partitions after the existing ones.
func placeStriped(brokers []Broker, existing [][]int32, count, rf int, opts Options) ([][]int32, error) {
	rl := newRackList(randOrDefault(opts.Rand), brokers, existing)
	if err := rl.validatePlacer(rf); err != nil {
		return nil, err
	}
	if count <= 0 {
		return [][]int32{}, nil
	}
	if err := opts.Limits.checkCluster(count); err != nil {
		return nil, err
	}
	unfenced := rl.unfencedFlags()
	g, ok := opts.Limits.guardFor(rl.ids, unfenced, count, rf)
	if !ok {
		return nil, infeasible(opts.Limits, func(g *guard) ([][]int32, error) { return rl.placeAll(count, rf, g) },
			len(rl.ids), unfenced, count, rf)
	}
	return rl.placeAll(count, rf, g)
}

// guardFor builds the guard for brokers ids (dense order) and reports whether the request is
// feasible within max.broker.partitions. When no broker could reach its limit even by taking
// a replica of every partition, the limit is left out so placement runs at full speed.
func (l Limits) guardFor(ids []int32, unfenced []bool, partitions, rf int) (*guard, bool) {
	g := newGuard(nil, unfenced, len(ids), partitions, rf)
	if l.MaxBrokerPartitions <= 0 {
		return g, true
	}
	left := make([]int, len(ids))
	binds := false
	for i, id := range ids {
		left[i] = l.headroom(id)
		binds = binds || left[i] < partitions
	}
	if !binds {
		return g, true
	}
	g.left = left
	return g, feasible(left, unfenced, partitions, rf)
}

// infeasible explains why no placement fits: it places without limits and reports the broker
// that this would push furthest over max.broker.partitions. (Such a broker exists: otherwise
// that unlimited placement would itself be a valid one.)
func infeasible(l Limits, run func(*guard) ([][]int32, error), brokers int, unfenced []bool, count, rf int) error {
	out, err := run(newGuard(nil, unfenced, brokers, count, rf))
	if err != nil {
		return err
	}
	if err := l.brokerError(out); err != nil {
		return err
	}
	return fmt.Errorf("placement: internal error: limits judged infeasible but an unlimited placement fits")
}
