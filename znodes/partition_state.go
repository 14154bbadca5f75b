package znodes

import (
	"encoding/json"
	"fmt"
)

// NoLeader is the leader id of a partition without a leader.
const NoLeader int32 = -1

// LeaderRecoveryState is KIP-704's leader recovery state.
type LeaderRecoveryState int8

const (
	// LeaderRecovered is the normal state; Kafka omits the field for it.
	LeaderRecovered LeaderRecoveryState = 0
	// LeaderRecovering follows an unclean election, until the new leader
	// has recovered its log.
	LeaderRecovering LeaderRecoveryState = 1
)

// PartitionState is the payload of
// /brokers/topics/<t>/partitions/<p>/state: leader, ISR and epochs. The
// znode's Stat.version is the partition epoch and is not part of the
// payload.
//
// EligibleLeaderReplicas and LastKnownELR are kzadmin's KIP-966 extension,
// stored as the extra fields "eligible_leader_replicas" and
// "last_known_elr". Stock Kafka brokers ignore them (and a pre-2.7-IV2
// leader rewriting the node drops them).
type PartitionState struct {
	// Version is what was read; Encode always writes 1.
	Version         int32
	Leader          int32
	LeaderEpoch     int32
	ISR             []int32
	ControllerEpoch int32
	// LeaderRecoveryState is written only when LeaderRecovering.
	LeaderRecoveryState LeaderRecoveryState
	// EligibleLeaderReplicas and LastKnownELR are written only when
	// non-empty; nil when absent or empty.
	EligibleLeaderReplicas []int32
	LastKnownELR           []int32
	// ELRMinISR ("elr_min_isr", kzadmin's) is the effective
	// min.insync.replicas the ELR fields were computed under. KIP-966 voids
	// an ELR when min.insync.replicas changes; the controller compares this
	// with the current value, so no config watch is needed for safety.
	// Written only when non-zero; 0 when absent.
	ELRMinISR int32
	// Unknown holds top-level fields this package does not know.
	Unknown map[string]json.RawMessage
}

func stateKnownFields() []string {
	return []string{"version", "leader", "leader_epoch", "isr", "controller_epoch",
		"leader_recovery_state", "eligible_leader_replicas", "last_known_elr", "elr_min_isr"}
}

// DecodePartitionState decodes a partition state znode; topic and partition
// name the znode in errors. leader, leader_epoch, isr and controller_epoch
// are required 32-bit integers (isr an array of them), as in Kafka.
func DecodePartitionState(topic string, partition int32, data []byte) (PartitionState, error) {
	d := decoder{znode: PartitionStatePath(topic, partition)}
	var s PartitionState
	f, err := d.parse(data)
	if err != nil {
		return s, err
	}
	if s.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return s, err
	}
	if s.Leader, err = d.requiredInt32(f, "", "leader"); err != nil {
		return s, err
	}
	if s.LeaderEpoch, err = d.requiredInt32(f, "", "leader_epoch"); err != nil {
		return s, err
	}
	isr, err := d.required(f, "", "isr")
	if err != nil {
		return s, err
	}
	if s.ISR, err = d.int32s(sub("", "isr"), isr); err != nil {
		return s, err
	}
	if s.ControllerEpoch, err = d.requiredInt32(f, "", "controller_epoch"); err != nil {
		return s, err
	}
	if s.LeaderRecoveryState, err = d.leaderRecoveryState(f); err != nil {
		return s, err
	}
	if s.EligibleLeaderReplicas, err = d.optionalInt32s(f, "eligible_leader_replicas"); err != nil {
		return s, err
	}
	if s.LastKnownELR, err = d.optionalInt32s(f, "last_known_elr"); err != nil {
		return s, err
	}
	if s.ELRMinISR, err = d.optionalInt32(f, "", "elr_min_isr", 0); err != nil {
		return s, err
	}
	s.Unknown = unknownFields(f, stateKnownFields()...)
	return s, nil
}

func (d decoder) leaderRecoveryState(f fields) (LeaderRecoveryState, error) {
	v, err := d.optionalInt32(f, "", "leader_recovery_state", 0)
	if err != nil {
		return 0, err
	}
	if v != int32(LeaderRecovered) && v != int32(LeaderRecovering) {
		return 0, d.fail(sub("", "leader_recovery_state"), "want 0 (recovered) or 1 (recovering), got %d", v)
	}
	return LeaderRecoveryState(v), nil
}

// optionalInt32s reads an array of int32 that may be absent or null.
func (d decoder) optionalInt32s(f fields, key string) ([]int32, error) {
	raw, ok := optional(f, key)
	if !ok {
		return nil, nil
	}
	return d.int32s(sub("", key), raw)
}

// Encode writes version 1 in the key order Kafka's writer produces:
// {"controller_epoch":7,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}
// followed by "leader_recovery_state":1 when recovering, then the ELR fields
// (and elr_min_isr) when non-empty, then unknown fields.
func (s PartitionState) Encode() ([]byte, error) {
	const znode = "/brokers/topics/<t>/partitions/<p>/state"
	if s.LeaderRecoveryState != LeaderRecovered && s.LeaderRecoveryState != LeaderRecovering {
		return nil, fmt.Errorf("encode %s: invalid leader recovery state %d", znode, s.LeaderRecoveryState)
	}
	var w jsonWriter
	w.beginObject()
	w.intField("controller_epoch", int64(s.ControllerEpoch))
	w.intField("leader", int64(s.Leader))
	w.intField("version", 1)
	w.intField("leader_epoch", int64(s.LeaderEpoch))
	w.key("isr")
	w.int32s(s.ISR)
	if s.LeaderRecoveryState == LeaderRecovering {
		w.intField("leader_recovery_state", int64(LeaderRecovering))
	}
	if len(s.EligibleLeaderReplicas) > 0 {
		w.key("eligible_leader_replicas")
		w.int32s(s.EligibleLeaderReplicas)
	}
	if len(s.LastKnownELR) > 0 {
		w.key("last_known_elr")
		w.int32s(s.LastKnownELR)
	}
	if s.ELRMinISR != 0 {
		w.intField("elr_min_isr", int64(s.ELRMinISR))
	}
	if err := w.unknown(znode, s.Unknown, stateKnownFields()...); err != nil {
		return nil, err
	}
	w.endObject()
	return w.bytes(), nil
}
