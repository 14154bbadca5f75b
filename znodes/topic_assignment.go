package znodes

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// TopicAssignmentVersion is the version Encode writes (Kafka 2.8+).
const TopicAssignmentVersion = 3

// TopicAssignment is the payload of /brokers/topics/<topic>: the replica
// assignment of every partition, the reassignment state, and the topic id.
//
// Versions read: 1 (partitions), 2 (+adding_replicas, removing_replicas),
// 3 (+optional topic_id). Encode writes version 3.
type TopicAssignment struct {
	// Version is what was read; Encode always writes 3.
	Version int32
	// Partitions maps partition id to the full replica set in preference
	// order (the first replica is the preferred leader). During a
	// reassignment it is target replicas followed by the original ones.
	Partitions map[int32][]int32
	// AddingReplicas and RemovingReplicas hold the reassignment in progress.
	// Only partitions with a non-empty list appear; nil when none.
	AddingReplicas   map[int32][]int32
	RemovingReplicas map[int32][]int32
	// TopicID is the topic's id; the zero UUID means none is stored.
	TopicID UUID
	// Unknown holds top-level fields this package does not know, re-emitted
	// by Encode so that adding partitions keeps what others wrote.
	Unknown map[string]json.RawMessage
}

func topicKnownFields() []string {
	return []string{"version", "partitions", "adding_replicas", "removing_replicas", "topic_id"}
}

// DecodeTopicAssignment decodes /brokers/topics/<topic>; topic names the
// znode in errors.
//
// Kafka treats a missing "partitions" key as a topic without partitions and
// so does this decoder. Partition keys must be canonical non-negative
// decimal ints (what Kafka writes). Every replica must be a 32-bit integer.
func DecodeTopicAssignment(topic string, data []byte) (TopicAssignment, error) {
	d := decoder{znode: TopicPath(topic)}
	var t TopicAssignment
	f, err := d.parse(data)
	if err != nil {
		return t, err
	}
	if t.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return t, err
	}
	if t.Partitions, err = d.replicaMap(f, "partitions", true); err != nil {
		return t, err
	}
	if t.AddingReplicas, err = d.replicaMap(f, "adding_replicas", false); err != nil {
		return t, err
	}
	if t.RemovingReplicas, err = d.replicaMap(f, "removing_replicas", false); err != nil {
		return t, err
	}
	if id, ok, err := d.optionalString(f, "", "topic_id"); err != nil {
		return t, err
	} else if ok {
		if t.TopicID, err = ParseUUID(id); err != nil {
			return t, d.fail(sub("", "topic_id"), "%v", err)
		}
	}
	t.Unknown = unknownFields(f, topicKnownFields()...)
	return t, nil
}

// replicaMap reads `{"<partition>":[broker, ...]}`. For adding/removing
// (keepEmpty false) empty lists are dropped, since Kafka only writes
// partitions with a non-empty list and reads a missing one as empty.
func (d decoder) replicaMap(f fields, key string, keepEmpty bool) (map[int32][]int32, error) {
	raw, ok := optional(f, key)
	if !ok {
		return nil, nil
	}
	field := sub("", key)
	obj, err := d.object(field, raw)
	if err != nil {
		return nil, err
	}
	var out map[int32][]int32
	for _, k := range sortedKeys(obj) {
		at := sub(field, k)
		p, ok := canonicalPartition(k)
		if !ok {
			return nil, d.fail(at, "want partition id as canonical non-negative decimal, got %q", clip(k))
		}
		replicas, err := d.int32s(at, obj[k])
		if err != nil {
			return nil, err
		}
		if len(replicas) == 0 && !keepEmpty {
			continue
		}
		if out == nil {
			out = make(map[int32][]int32, len(obj))
		}
		out[p] = replicas
	}
	return out, nil
}

// canonicalPartition accepts "0", "17", ... but not "+1", "01" or "-1":
// those would alias canonical keys once re-encoded.
func canonicalPartition(s string) (int32, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 32)
	return int32(v), err == nil
}

// Encode writes version 3 with Kafka's key order: version, partitions,
// adding_replicas, removing_replicas, then topic_id when set. Partitions are
// ordered by id. Negative partition ids are rejected.
func (t TopicAssignment) Encode() ([]byte, error) {
	const znode = "/brokers/topics/<topic>"
	var w jsonWriter
	w.beginObject()
	w.intField("version", TopicAssignmentVersion)
	for _, m := range []struct {
		key       string
		replicas  map[int32][]int32
		keepEmpty bool
	}{{"partitions", t.Partitions, true}, {"adding_replicas", t.AddingReplicas, false},
		{"removing_replicas", t.RemovingReplicas, false}} {
		if err := w.replicaMap(m.key, m.replicas, m.keepEmpty); err != nil {
			return nil, fmt.Errorf("encode %s: %w", znode, err)
		}
	}
	if !t.TopicID.IsZero() {
		w.strField("topic_id", t.TopicID.String())
	}
	if err := w.unknown(znode, t.Unknown, topicKnownFields()...); err != nil {
		return nil, err
	}
	w.endObject()
	return w.bytes(), nil
}

func (w *jsonWriter) replicaMap(key string, m map[int32][]int32, keepEmpty bool) error {
	ids := make([]int32, 0, len(m))
	for p, replicas := range m {
		if p < 0 {
			return fmt.Errorf("%s: negative partition id %d", key, p)
		}
		if keepEmpty || len(replicas) > 0 {
			ids = append(ids, p)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	w.key(key)
	w.beginObject()
	for _, p := range ids {
		w.key(itoa(p))
		w.int32s(m[p])
	}
	w.endObject()
	return nil
}

// IsReassigning reports whether partition p has a reassignment in progress.
func (t TopicAssignment) IsReassigning(p int32) bool {
	return len(t.AddingReplicas[p]) > 0 || len(t.RemovingReplicas[p]) > 0
}

// TargetReplicas is where partition p is going: its replicas minus those
// being removed (Kafka's ReplicaAssignment.targetReplicas).
func (t TopicAssignment) TargetReplicas(p int32) []int32 {
	return without(t.Partitions[p], t.RemovingReplicas[p])
}

// OriginalReplicas is where partition p was: its replicas minus those being
// added (Kafka's ReplicaAssignment.originReplicas).
func (t TopicAssignment) OriginalReplicas(p int32) []int32 {
	return without(t.Partitions[p], t.AddingReplicas[p])
}

// PartitionIDs returns the assigned partition ids in ascending order.
func (t TopicAssignment) PartitionIDs() []int32 {
	ids := make([]int32, 0, len(t.Partitions))
	for p := range t.Partitions {
		ids = append(ids, p)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func without(list, drop []int32) []int32 {
	out := make([]int32, 0, len(list))
	for _, v := range list {
		keep := true
		for _, x := range drop {
			if v == x {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, v)
		}
	}
	return out
}
