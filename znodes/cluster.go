package znodes

import (
	"strconv"
	"time"
)

// ClusterID is the payload of /cluster/id: {"version":"1","id":"<id>"}.
// Note that the version is a JSON string. Only "id" is read by Kafka.
type ClusterID struct {
	ID string
}

// DecodeClusterID decodes /cluster/id.
func DecodeClusterID(data []byte) (ClusterID, error) {
	d := decoder{znode: ClusterIDPath}
	var c ClusterID
	f, err := d.parse(data)
	if err != nil {
		return c, err
	}
	if _, _, err = d.optionalString(f, "", "version"); err != nil {
		return c, err
	}
	c.ID, err = d.requiredString(f, "", "id")
	return c, err
}

// Encode writes {"version":"1","id":"<id>"}.
func (c ClusterID) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.strField("version", "1")
	w.strField("id", c.ID)
	w.endObject()
	return w.bytes(), nil
}

// NoKRaftControllerEpoch is the kraftControllerEpoch a ZooKeeper-mode
// controller writes (and what an absent field means).
const NoKRaftControllerEpoch int32 = -1

// ControllerRegistration is the payload of the ephemeral /controller znode.
//
// Versions read: 2 (3.4+, adds kraftControllerEpoch), 1 (brokerid and
// timestamp), and the pre-JSON form of Kafka 0.8.0, where the data is the
// broker id as plain decimal text (reported as Version 0). Encode always
// writes version 2.
type ControllerRegistration struct {
	// Version is what was read; Encode always writes 2.
	Version  int32
	BrokerID int32
	// Timestamp is the registration time in epoch milliseconds, as the
	// decimal string Kafka writes. Kafka never reads it.
	Timestamp string
	// KRaftControllerEpoch is -1 for a ZooKeeper controller. A larger value
	// means a KRaft controller owns the cluster (migration), in which case
	// the znode is persistent.
	KRaftControllerEpoch int32
}

// NewControllerRegistration builds the registration a ZooKeeper-mode
// controller writes when it wins the election at time now.
func NewControllerRegistration(brokerID int32, now time.Time) ControllerRegistration {
	return ControllerRegistration{
		Version:              2,
		BrokerID:             brokerID,
		Timestamp:            MillisString(now),
		KRaftControllerEpoch: NoKRaftControllerEpoch,
	}
}

// MillisString formats t as the decimal epoch-milliseconds string Kafka
// stores in "timestamp" fields.
func MillisString(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// DecodeControllerRegistration decodes /controller.
func DecodeControllerRegistration(data []byte) (ControllerRegistration, error) {
	d := decoder{znode: ControllerPath}
	c := ControllerRegistration{KRaftControllerEpoch: NoKRaftControllerEpoch}
	if id, err := parseJavaInt(string(data), 32); err == nil && len(data) > 0 {
		c.BrokerID = int32(id) // 0.8.0 wrote the bare broker id
		return c, nil
	}
	f, err := d.parse(data)
	if err != nil {
		return c, err
	}
	if c.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return c, err
	}
	if c.BrokerID, err = d.requiredInt32(f, "", "brokerid"); err != nil {
		return c, err
	}
	if c.Timestamp, _, err = d.optionalString(f, "", "timestamp"); err != nil {
		return c, err
	}
	c.KRaftControllerEpoch, err = d.optionalInt32(f, "", "kraftControllerEpoch", NoKRaftControllerEpoch)
	return c, err
}

// Encode writes the version 2 form, in Kafka's key order:
// {"version":2,"brokerid":1,"timestamp":"1700000000123","kraftControllerEpoch":-1}.
func (c ControllerRegistration) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 2)
	w.intField("brokerid", int64(c.BrokerID))
	w.strField("timestamp", c.Timestamp)
	w.intField("kraftControllerEpoch", int64(c.KRaftControllerEpoch))
	w.endObject()
	return w.bytes(), nil
}

// DecodeControllerEpoch decodes /controller_epoch: the epoch as plain ASCII
// decimal text (not JSON), parsed like Java's Integer.parseInt, so no
// whitespace or newline is allowed.
func DecodeControllerEpoch(data []byte) (int32, error) {
	d := decoder{znode: ControllerEpochPath}
	if data == nil {
		return 0, &DecodeError{Znode: d.znode, Reason: "null data", Err: ErrNoData}
	}
	if len(data) == 0 {
		return 0, &DecodeError{Znode: d.znode, Reason: "empty data", Err: ErrNoData}
	}
	v, err := parseJavaInt(string(data), 32)
	if err != nil {
		return 0, &DecodeError{Znode: d.znode, Reason: "want decimal epoch: " + err.Error(), Err: err}
	}
	return int32(v), nil
}

// EncodeControllerEpoch writes the epoch as decimal text, e.g. "7".
func EncodeControllerEpoch(epoch int32) []byte { return []byte(itoa(epoch)) }

// DefaultReservedBrokerMaxID is the default of reserved.broker.max.id.
const DefaultReservedBrokerMaxID int32 = 1000

// GeneratedBrokerID returns the broker id Kafka derives from /brokers/seqid:
// the Stat.version returned by setData(/brokers/seqid, empty, -1) plus
// reserved.broker.max.id. The znode's data itself is always empty.
func GeneratedBrokerID(seqIDVersion, reservedBrokerMaxID int32) int32 {
	return seqIDVersion + reservedBrokerMaxID
}

// BrokerSeqIDData is what Kafka writes to /brokers/seqid on each id
// generation: a zero-length payload (the node is created with null data).
func BrokerSeqIDData() []byte { return []byte{} }
