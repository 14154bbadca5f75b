package config

import (
	"fmt"
	"strings"
)

// IBP is a Kafka inter.broker.protocol.version (Kafka's MetadataVersion), from
// 0.8.0 to 3.9-IV0, the last line with ZooKeeper mode. Values are ordered, so
// feature gates read as v.AtLeast(IBP2_7_IV2). The zero value is IBP0_8_0.
//
// The controller picks the versions of LeaderAndIsr, UpdateMetadata and
// StopReplica, and its ZooKeeper formats, from this value; the brokers pick
// theirs from their own setting, so both must be configured alike.
type IBP uint8

// The known versions, oldest first, named as Kafka's MetadataVersion enum.
// Each release's own internal versions (IVn) mark protocol changes made
// while that release was being developed.
const (
	IBP0_8_0 IBP = iota
	IBP0_8_1
	IBP0_8_2
	IBP0_9_0
	IBP0_10_0_IV0
	IBP0_10_0_IV1
	IBP0_10_1_IV0
	IBP0_10_1_IV1
	IBP0_10_1_IV2
	IBP0_10_2_IV0
	IBP0_11_0_IV0
	IBP0_11_0_IV1
	IBP0_11_0_IV2
	IBP1_0_IV0
	IBP1_1_IV0
	IBP2_0_IV0
	IBP2_0_IV1
	IBP2_1_IV0
	IBP2_1_IV1
	IBP2_1_IV2
	IBP2_2_IV0
	IBP2_2_IV1
	IBP2_3_IV0
	IBP2_3_IV1
	IBP2_4_IV0
	IBP2_4_IV1
	IBP2_5_IV0
	IBP2_6_IV0
	IBP2_7_IV0
	IBP2_7_IV1
	IBP2_7_IV2
	IBP2_8_IV0
	IBP2_8_IV1
	IBP3_0_IV0
	IBP3_0_IV1
	IBP3_1_IV0
	IBP3_2_IV0
	IBP3_3_IV0
	IBP3_3_IV1
	IBP3_3_IV2
	IBP3_3_IV3
	IBP3_4_IV0
	IBP3_5_IV0
	IBP3_5_IV1
	IBP3_5_IV2
	IBP3_6_IV0
	IBP3_6_IV1
	IBP3_6_IV2
	IBP3_7_IV0
	IBP3_7_IV1
	IBP3_7_IV2
	IBP3_7_IV3
	IBP3_7_IV4
	IBP3_8_IV0
	IBP3_9_IV0

	// IBPLatest is the newest version known here and the default.
	IBPLatest = IBP3_9_IV0
)

// ibpNames returns the config spelling of every IBP, indexed by value.
func ibpNames() []string {
	return []string{
		"0.8.0", "0.8.1", "0.8.2", "0.9.0",
		"0.10.0-IV0", "0.10.0-IV1", "0.10.1-IV0", "0.10.1-IV1", "0.10.1-IV2", "0.10.2-IV0",
		"0.11.0-IV0", "0.11.0-IV1", "0.11.0-IV2",
		"1.0-IV0", "1.1-IV0",
		"2.0-IV0", "2.0-IV1", "2.1-IV0", "2.1-IV1", "2.1-IV2", "2.2-IV0", "2.2-IV1",
		"2.3-IV0", "2.3-IV1", "2.4-IV0", "2.4-IV1", "2.5-IV0", "2.6-IV0",
		"2.7-IV0", "2.7-IV1", "2.7-IV2", "2.8-IV0", "2.8-IV1",
		"3.0-IV0", "3.0-IV1", "3.1-IV0", "3.2-IV0", "3.3-IV0", "3.3-IV1", "3.3-IV2", "3.3-IV3",
		"3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1", "3.6-IV2",
		"3.7-IV0", "3.7-IV1", "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0", "3.9-IV0",
	}
}

// String returns the full spelling, e.g. "2.7-IV2" or "0.8.2".
func (v IBP) String() string {
	names := ibpNames()
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("IBP(%d)", uint8(v))
}

// Release returns the release part, e.g. "2.7" for 2.7-IV2.
func (v IBP) Release() string {
	s := v.String()
	if i := strings.Index(s, "-"); i >= 0 {
		return s[:i]
	}
	return s
}

// Valid reports whether v is one of the known versions.
func (v IBP) Valid() bool { return v <= IBPLatest }

// AtLeast reports whether v is other or newer.
func (v IBP) AtLeast(other IBP) bool { return v >= other }

// ParseIBP reads an inter.broker.protocol.version the way Kafka does. A full
// spelling ("2.7-IV2") names that version; a release ("2.7") names its
// newest internal version (2.7-IV2). Segments past the release are ignored,
// as Kafka ignores them: "3.9.1" is 3.9, and "0.10.0.1" is 0.10.0 (releases
// before 1.0 have three segments). The match is case-sensitive, as in Kafka.
func ParseIBP(s string) (IBP, error) {
	key := s
	segs := strings.Split(s, ".")
	n := 2
	if strings.HasPrefix(s, "0.") {
		n = 3
	}
	if len(segs) > n {
		key = strings.Join(segs[:n], ".")
	}
	var found IBP
	ok := false
	for i, name := range ibpNames() {
		// Later entries overwrite earlier ones, so a bare release ends
		// on its newest internal version.
		if name == key || strings.HasPrefix(name, key+"-IV") {
			found, ok = IBP(i), true
		}
	}
	if !ok {
		return 0, fmt.Errorf("must be a Kafka version from %s to %s, as a release (3.9) or with its internal version (2.7-IV2)",
			IBP0_8_0, IBPLatest.Release())
	}
	return found, nil
}

// MarshalText makes IBP print as its spelling in JSON and logs.
func (v IBP) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Behaviour gated on the IBP (controller reference §5.3, §6.7). The
// controller consults these; brokers decide from their own setting.

// LeaderRecoverySupported reports IBP >= 3.2-IV0: LeaderAndIsr carries the
// leader recovery state and an unclean election sets RECOVERING (KIP-704).
func (v IBP) LeaderRecoverySupported() bool { return v.AtLeast(IBP3_2_IV0) }

// TopicIDsSupported reports IBP >= 2.8-IV0: the controller assigns topic
// ids to topics that lack one (KIP-516).
func (v IBP) TopicIDsSupported() bool { return v.AtLeast(IBP2_8_IV0) }

// AlterPartitionSupported reports IBP >= 2.7-IV2: brokers send
// AlterPartition to the controller instead of writing ISR changes to
// ZooKeeper themselves.
func (v IBP) AlterPartitionSupported() bool { return v.AtLeast(IBP2_7_IV2) }

// FeatureVersioningSupported reports IBP >= 2.7-IV0: the controller
// manages the /feature znode (KIP-584).
func (v IBP) FeatureVersioningSupported() bool { return v.AtLeast(IBP2_7_IV0) }

// AllocateProducerIDsSupported reports IBP >= 3.0-IV0: brokers ask the
// controller for producer id blocks (KIP-730).
func (v IBP) AllocateProducerIDsSupported() bool { return v.AtLeast(IBP3_0_IV0) }
