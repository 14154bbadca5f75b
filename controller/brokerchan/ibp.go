package brokerchan

import (
	"fmt"
	"strings"
)

// Ordinals of Kafka's MetadataVersion values, in Kafka's order (older first).
// Only the order matters; ibpNames must list the same values in the same
// order, which a test checks.
const (
	v0_8_0 = iota
	v0_8_1
	v0_8_2
	v0_9_0
	v0_10_0_IV0
	v0_10_0_IV1
	v0_10_1_IV0
	v0_10_1_IV1
	v0_10_1_IV2
	v0_10_2_IV0
	v0_11_0_IV0
	v0_11_0_IV1
	v0_11_0_IV2
	v1_0_IV0
	v1_1_IV0
	v2_0_IV0
	v2_0_IV1
	v2_1_IV0
	v2_1_IV1
	v2_1_IV2
	v2_2_IV0
	v2_2_IV1
	v2_3_IV0
	v2_3_IV1
	v2_4_IV0
	v2_4_IV1
	v2_5_IV0
	v2_6_IV0
	v2_7_IV0
	v2_7_IV1
	v2_7_IV2
	v2_8_IV0
	v2_8_IV1
	v3_0_IV0
	v3_0_IV1
	v3_1_IV0
	v3_2_IV0
	v3_3_IV0
	v3_3_IV1
	v3_3_IV2
	v3_3_IV3
	v3_4_IV0
	v3_5_IV0
	v3_5_IV1
	v3_5_IV2
	v3_6_IV0
	v3_6_IV1
	v3_6_IV2
	v3_7_IV0
	v3_7_IV1
	v3_7_IV2
	v3_7_IV3
	v3_7_IV4
	v3_8_IV0
	v3_9_IV0
	ibpCount
)

// ibpName is one MetadataVersion: its release ("2.7", "0.10.0") and its
// internal version ("IV2"; empty for the four releases before 0.10.0).
type ibpName struct {
	release string
	sub     string
}

// ibpNames lists every inter.broker.protocol.version a ZooKeeper-mode Kafka
// 3.9 broker accepts, indexed by the ordinals above. A function, not a
// package variable, so nothing can change it.
func ibpNames() [ibpCount]ibpName {
	return [ibpCount]ibpName{
		{"0.8.0", ""}, {"0.8.1", ""}, {"0.8.2", ""}, {"0.9.0", ""},
		{"0.10.0", "IV0"}, {"0.10.0", "IV1"},
		{"0.10.1", "IV0"}, {"0.10.1", "IV1"}, {"0.10.1", "IV2"},
		{"0.10.2", "IV0"},
		{"0.11.0", "IV0"}, {"0.11.0", "IV1"}, {"0.11.0", "IV2"},
		{"1.0", "IV0"}, {"1.1", "IV0"},
		{"2.0", "IV0"}, {"2.0", "IV1"},
		{"2.1", "IV0"}, {"2.1", "IV1"}, {"2.1", "IV2"},
		{"2.2", "IV0"}, {"2.2", "IV1"},
		{"2.3", "IV0"}, {"2.3", "IV1"},
		{"2.4", "IV0"}, {"2.4", "IV1"},
		{"2.5", "IV0"}, {"2.6", "IV0"},
		{"2.7", "IV0"}, {"2.7", "IV1"}, {"2.7", "IV2"},
		{"2.8", "IV0"}, {"2.8", "IV1"},
		{"3.0", "IV0"}, {"3.0", "IV1"},
		{"3.1", "IV0"}, {"3.2", "IV0"},
		{"3.3", "IV0"}, {"3.3", "IV1"}, {"3.3", "IV2"}, {"3.3", "IV3"},
		{"3.4", "IV0"},
		{"3.5", "IV0"}, {"3.5", "IV1"}, {"3.5", "IV2"},
		{"3.6", "IV0"}, {"3.6", "IV1"}, {"3.6", "IV2"},
		{"3.7", "IV0"}, {"3.7", "IV1"}, {"3.7", "IV2"}, {"3.7", "IV3"}, {"3.7", "IV4"},
		{"3.8", "IV0"}, {"3.9", "IV0"},
	}
}

// full renders the name as Kafka's ibpVersion: "release-IVn", or the bare
// release when there is no internal version.
func (n ibpName) full() string {
	if n.sub == "" {
		return n.release
	}
	return n.release + "-" + n.sub
}

// IBP is an inter.broker.protocol.version (Kafka's MetadataVersion as used
// in ZooKeeper mode). The controller chooses the version of every
// LeaderAndIsr, UpdateMetadata and StopReplica request from it, with no
// ApiVersions negotiation, so it must equal the brokers' setting.
//
// The zero IBP is Kafka's default for the setting, the latest version
// (3.9-IV0). IBPs compare with Compare, AtLeast and Less; == works too.
type IBP struct {
	// o is the ordinal plus one, so that the zero value can mean "default".
	o uint8
}

// LatestIBP returns 3.9-IV0, the newest version a ZooKeeper-mode broker
// accepts and the default of inter.broker.protocol.version in Kafka 3.9.
func LatestIBP() IBP { return IBP{o: v3_9_IV0 + 1} }

// AllIBPs returns every IBP, oldest first.
func AllIBPs() []IBP {
	out := make([]IBP, ibpCount)
	for i := range out {
		out[i] = IBP{o: uint8(i + 1)}
	}
	return out
}

// ord returns the ordinal, resolving the zero value to the latest.
func (v IBP) ord() int {
	if v.o == 0 {
		return v3_9_IV0
	}
	return int(v.o) - 1
}

// String returns Kafka's full form, e.g. "2.7-IV2" or "0.9.0".
func (v IBP) String() string { return ibpNames()[v.ord()].full() }

// Release returns the release part, e.g. "2.7" or "0.10.0".
func (v IBP) Release() string { return ibpNames()[v.ord()].release }

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than w.
func (v IBP) Compare(w IBP) int {
	a, b := v.ord(), w.ord()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// AtLeast reports whether v is w or newer (Kafka's isAtLeast).
func (v IBP) AtLeast(w IBP) bool { return v.ord() >= w.ord() }

// Less reports whether v is older than w (Kafka's isLessThan).
func (v IBP) Less(w IBP) bool { return v.ord() < w.ord() }

// atLeast compares against an ordinal constant.
func (v IBP) atLeast(ord int) bool { return v.ord() >= ord }

// IBPError reports a string that names no inter.broker.protocol.version.
type IBPError struct {
	Value string
}

func (e *IBPError) Error() string {
	return fmt.Sprintf("inter.broker.protocol.version: Version %s is not a valid version", e.Value)
}

// ParseIBP parses an inter.broker.protocol.version as Kafka's
// MetadataVersion.fromVersionString does, after trimming spaces as Kafka's
// config parser does. Accepted forms:
//
//   - a full version, "2.7-IV2" or "0.10.0-IV1";
//   - a release, "2.7" or "0.10.0", meaning its latest internal version
//     ("2.7" is 2.7-IV2);
//   - a longer patch form, which is cut to the release: "2.7.1" is "2.7",
//     "0.10.0.1" is "0.10.0", and "1.0.1" is "1.0" (Kafka's documented
//     quirk: only the first two numbers count from 1.0 on, three before).
func ParseIBP(s string) (IBP, error) {
	s = strings.TrimSpace(s)
	segments := 2
	if strings.HasPrefix(s, "0.") {
		segments = 3
	}
	key := s
	if parts := strings.Split(s, "."); len(parts) > segments {
		key = strings.Join(parts[:segments], ".")
	}
	names := ibpNames()
	found := -1
	for i, n := range names {
		if n.full() == key {
			return IBP{o: uint8(i + 1)}, nil
		}
		if n.release == key {
			found = i // keep going: the latest internal version wins
		}
	}
	if found < 0 {
		return IBP{}, &IBPError{Value: s}
	}
	return IBP{o: uint8(found + 1)}, nil
}

// MustParseIBP is ParseIBP for constants in code and tests; it panics on an
// invalid string.
func MustParseIBP(s string) IBP {
	v, err := ParseIBP(s)
	if err != nil {
		panic(err)
	}
	return v
}

// RequestVersions are the versions of the three control requests that the
// controller sends at one IBP.
type RequestVersions struct {
	LeaderAndISR   int16
	UpdateMetadata int16
	StopReplica    int16
}

// RequestVersions returns the request versions Kafka's
// ControllerBrokerRequestBatch uses at v (controller reference §5.3).
func (v IBP) RequestVersions() RequestVersions {
	return RequestVersions{
		LeaderAndISR:   v.leaderAndISRVersion(),
		UpdateMetadata: v.updateMetadataVersion(),
		StopReplica:    v.stopReplicaVersion(),
	}
}

func (v IBP) leaderAndISRVersion() int16 {
	switch {
	case v.atLeast(v3_4_IV0):
		return 7
	case v.atLeast(v3_2_IV0):
		return 6
	case v.atLeast(v2_8_IV1):
		return 5
	case v.atLeast(v2_4_IV1):
		return 4
	case v.atLeast(v2_4_IV0):
		return 3
	case v.atLeast(v2_2_IV0):
		return 2
	case v.atLeast(v1_0_IV0):
		return 1
	}
	return 0
}

func (v IBP) updateMetadataVersion() int16 {
	switch {
	case v.atLeast(v3_4_IV0):
		return 8
	case v.atLeast(v2_8_IV1):
		return 7
	case v.atLeast(v2_4_IV1):
		return 6
	case v.atLeast(v2_2_IV0):
		return 5
	case v.atLeast(v1_0_IV0):
		return 4
	case v.atLeast(v0_10_2_IV0):
		return 3
	case v.atLeast(v0_10_0_IV1):
		return 2
	case v.atLeast(v0_9_0):
		return 1
	}
	return 0
}

// stopReplicaVersion is Kafka's choice except from 3.4-IV0, where Kafka
// sends v4 and we send v3. kmsg (v1.15.1) encodes v4's IsKRaftController
// after ControllerEpoch, while Kafka's schema has it right after
// ControllerId (as kmsg does for LeaderAndIsr and UpdateMetadata): a real
// 3.9 broker then reads controller epoch 256 from epoch 1 and refuses
// every later request of this controller as STALE_CONTROLLER_EPOCH (seen
// with integration/wireapi's DeleteTopics against real brokers). v4 only
// adds that flag, which a ZooKeeper controller leaves false, so v3 says
// the same thing.
func (v IBP) stopReplicaVersion() int16 {
	switch {
	case v.atLeast(v2_6_IV0):
		return 3
	case v.atLeast(v2_4_IV1):
		return 2
	case v.atLeast(v2_2_IV0):
		return 1
	}
	return 0
}

// Other behaviour gated on the IBP (controller reference §5.3, §6.7). The
// controller consults these; brokers decide from their own setting.

// LeaderRecoverySupported reports IBP >= 3.2-IV0: LeaderAndIsr carries the
// leader recovery state and an unclean election sets RECOVERING (KIP-704).
func (v IBP) LeaderRecoverySupported() bool { return v.atLeast(v3_2_IV0) }

// TopicIDsSupported reports IBP >= 2.8-IV0: the controller assigns topic
// ids to topics that lack one (KIP-516).
func (v IBP) TopicIDsSupported() bool { return v.atLeast(v2_8_IV0) }

// AlterPartitionSupported reports IBP >= 2.7-IV2: brokers send
// AlterPartition to the controller instead of writing ISR changes to
// ZooKeeper themselves.
func (v IBP) AlterPartitionSupported() bool { return v.atLeast(v2_7_IV2) }

// FeatureVersioningSupported reports IBP >= 2.7-IV0: the controller
// manages the /feature znode (KIP-584).
func (v IBP) FeatureVersioningSupported() bool { return v.atLeast(v2_7_IV0) }

// AllocateProducerIDsSupported reports IBP >= 3.0-IV0: brokers ask the
// controller for producer id blocks (KIP-730).
func (v IBP) AllocateProducerIDsSupported() bool { return v.atLeast(v3_0_IV0) }
