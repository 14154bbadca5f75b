package znodes

// DeleteTopicMarkerData is the data of /admin/delete_topics/<topic>: null.
// Kafka creates deletion markers, like every container znode, with null data
// (a nil slice), never with a zero-length payload.
func DeleteTopicMarkerData() []byte { return nil }

// ReassignmentEntry is one element of the legacy /admin/reassign_partitions
// znode: move Topic-Partition to Replicas.
type ReassignmentEntry struct {
	Topic     string
	Partition int32
	Replicas  []int32
}

// ReassignPartitions is the legacy (pre-2.4 tooling) reassignment request at
// /admin/reassign_partitions: {"version":1,"partitions":[{...}]}.
//
// Kafka parses this znode with Jackson databind and FAIL_ON_UNKNOWN_PROPERTIES,
// so an unknown key anywhere (for example "log_dirs") makes the whole
// payload invalid; the decoder here rejects it too. Kafka then logs and
// ignores the node without deleting it.
type ReassignPartitions struct {
	// Version is what was read; Encode always writes 1.
	Version    int32
	Partitions []ReassignmentEntry
}

// ByPartition returns the requested replicas per partition. A partition
// listed twice keeps its last entry, as Kafka's toMap does.
func (r ReassignPartitions) ByPartition() map[TopicPartition][]int32 {
	out := make(map[TopicPartition][]int32, len(r.Partitions))
	for _, e := range r.Partitions {
		out[TopicPartition{Topic: e.Topic, Partition: e.Partition}] = e.Replicas
	}
	return out
}

// DecodeReassignPartitions decodes /admin/reassign_partitions strictly.
func DecodeReassignPartitions(data []byte) (ReassignPartitions, error) {
	d := decoder{znode: ReassignPartitionsPath}
	var r ReassignPartitions
	f, err := d.parse(data)
	if err != nil {
		return r, err
	}
	if err := d.rejectUnknown(f, "", "version", "partitions"); err != nil {
		return r, err
	}
	if r.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return r, err
	}
	raw, err := d.required(f, "", "partitions")
	if err != nil {
		return r, err
	}
	elems, err := d.array(sub("", "partitions"), raw)
	if err != nil {
		return r, err
	}
	for i, e := range elems {
		entry, err := d.reassignmentEntry(idx(sub("", "partitions"), i), e)
		if err != nil {
			return r, err
		}
		r.Partitions = append(r.Partitions, entry)
	}
	return r, nil
}

func (d decoder) reassignmentEntry(at string, raw []byte) (ReassignmentEntry, error) {
	var e ReassignmentEntry
	f, err := d.object(at, raw)
	if err != nil {
		return e, err
	}
	if err := d.rejectUnknown(f, at, "topic", "partition", "replicas"); err != nil {
		return e, err
	}
	if e.Topic, err = d.requiredString(f, at, "topic"); err != nil {
		return e, err
	}
	if e.Partition, err = d.requiredInt32(f, at, "partition"); err != nil {
		return e, err
	}
	replicas, err := d.required(f, at, "replicas")
	if err != nil {
		return e, err
	}
	e.Replicas, err = d.int32s(sub(at, "replicas"), replicas)
	return e, err
}

// rejectUnknown mimics Jackson databind's FAIL_ON_UNKNOWN_PROPERTIES.
func (d decoder) rejectUnknown(f fields, parent string, known ...string) error {
	for _, k := range sortedKeys(f) {
		if !contains(known, k) {
			return d.fail(sub(parent, k), "unknown field (Kafka parses this znode strictly and would ignore it)")
		}
	}
	return nil
}

// Encode writes Kafka's form, e.g.
// {"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]}]}.
func (r ReassignPartitions) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 1)
	w.key("partitions")
	w.beginArray()
	for _, e := range r.Partitions {
		w.beginObject()
		w.strField("topic", e.Topic)
		w.intField("partition", int64(e.Partition))
		w.key("replicas")
		w.int32s(e.Replicas)
		w.endObject()
	}
	w.endArray()
	w.endObject()
	return w.bytes(), nil
}

// PreferredReplicaElection is the legacy request at
// /admin/preferred_replica_election:
// {"version":1,"partitions":[{"topic":"foo","partition":0}]}.
type PreferredReplicaElection struct {
	// Version is what was read; Encode always writes 1.
	Version int32
	// Partitions keeps the listed order and any duplicates; Kafka uses it as
	// a set.
	Partitions []TopicPartition
}

// DecodePreferredReplicaElection decodes /admin/preferred_replica_election.
// "partitions" is required, as in Kafka.
func DecodePreferredReplicaElection(data []byte) (PreferredReplicaElection, error) {
	d := decoder{znode: PreferredReplicaElectionPath}
	var p PreferredReplicaElection
	f, err := d.parse(data)
	if err != nil {
		return p, err
	}
	if p.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return p, err
	}
	raw, err := d.required(f, "", "partitions")
	if err != nil {
		return p, err
	}
	p.Partitions, err = d.topicPartitions(sub("", "partitions"), raw)
	return p, err
}

// Encode writes Kafka's form with version 1.
func (p PreferredReplicaElection) Encode() ([]byte, error) {
	return encodeVersionedPartitions(p.Partitions), nil
}

func encodeVersionedPartitions(tps []TopicPartition) []byte {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 1)
	w.key("partitions")
	w.topicPartitions(tps)
	w.endObject()
	return w.bytes()
}
