package placement

import (
	"cmp"
	"slices"
)

// Broker is a broker as placement sees it.
type Broker struct {
	ID int32
	// Rack is broker.rack; it is meaningful only when HasRack is set.
	Rack    string
	HasRack bool
	// Fenced marks a registered broker that must not lead (the striped placer's notion). The
	// AdminUtils placer ignores it: ZK-mode Kafka places on the live brokers it is given.
	Fenced bool
}

func (b Broker) rackKey() rackKey { return rackKey{name: b.Rack, present: b.HasRack} }

// RackMode is Kafka's RackAwareMode: what to do when only some brokers have a rack.
type RackMode int

const (
	// RackEnforced fails when some, but not all, brokers have a rack. It is the default of the
	// CLI tools and of topic creation.
	RackEnforced RackMode = iota
	// RackDisabled drops every rack (the tools' --disable-rack-aware).
	RackDisabled
	// RackSafe drops every rack when any broker lacks one (auto topic creation).
	RackSafe
)

// ApplyRackMode returns a copy of brokers sorted by id with racks kept or dropped as mode says,
// like AdminZkClient.getBrokerMetadatas. Under RackEnforced a mixed cluster is an
// AdminOperation error with Kafka's CLI message.
func ApplyRackMode(brokers []Broker, mode RackMode) ([]Broker, error) {
	out := sortedByID(brokers)
	withRack := 0
	for _, b := range out {
		if b.HasRack {
			withRack++
		}
	}
	mixed := withRack > 0 && withRack < len(out)
	if mode == RackEnforced && mixed {
		return nil, errorf(AdminOperation, "Not all brokers have rack information. Add --disable-rack-aware in "+
			"command line to make replica assignment without rack information.")
	}
	if mode == RackDisabled || (mode == RackSafe && mixed) {
		for i := range out {
			out[i].Rack, out[i].HasRack = "", false
		}
	}
	return out, nil
}

func sortedByID(brokers []Broker) []Broker {
	out := slices.Clone(brokers)
	slices.SortStableFunc(out, func(a, b Broker) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// duplicateID returns the first id that appears twice, if any.
func duplicateID(brokers []Broker) (int32, bool) {
	seen := make(map[int32]struct{}, len(brokers))
	for _, b := range brokers {
		if _, ok := seen[b.ID]; ok {
			return b.ID, true
		}
		seen[b.ID] = struct{}{}
	}
	return 0, false
}

// rackAlternated is AdminUtils.getRackAlternatedBrokerList: ids grouped by rack, ascending
// within a rack, racks in String.compareTo order, then taken round-robin one per rack.
// It also returns each position's rack index and the number of racks.
func rackAlternated(brokers []Broker) (list []int32, rackAt []int, numRacks int) {
	byRack := map[string][]int32{}
	for _, b := range brokers {
		byRack[b.Rack] = append(byRack[b.Rack], b.ID)
	}
	names := make([]string, 0, len(byRack))
	for name, ids := range byRack {
		slices.Sort(ids)
		names = append(names, name)
	}
	slices.SortFunc(names, compareJava)
	next := make([]int, len(names))
	for len(list) < len(brokers) {
		for r, name := range names {
			if ids := byRack[name]; next[r] < len(ids) {
				list = append(list, ids[next[r]])
				rackAt = append(rackAt, r)
				next[r]++
			}
		}
	}
	return list, rackAt, len(names)
}

// RackAlternatedBrokerList is Kafka's getRackAlternatedBrokerList for brokers that all have a
// rack: the order in which the rack-aware AdminUtils placer hands out leaders.
func RackAlternatedBrokerList(brokers []Broker) []int32 {
	list, _, _ := rackAlternated(brokers)
	return list
}
