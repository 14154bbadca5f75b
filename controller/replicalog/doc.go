// Package replicalog asks brokers where their replicas' logs end: the log
// end offset and the epoch of the last record, per partition. The unclean
// recovery manager (KIP-966) uses it to pick the replica with the longest
// log when a partition has lost every in-sync and eligible replica.
//
// Two ways to ask exist. A broker that advertises GetReplicaLogInfo (the
// seed's API, served here on key GetReplicaLogInfoKey because the seed's
// key 70 is ControllerRegistration in real Kafka; only our broker simulator
// serves it) answers up to MaxPartitionsPerRequest partitions per request.
// A stock Kafka broker is asked with ListOffsets (LATEST, replica id -2,
// the debugging id, which lets a follower answer from its own log).
package replicalog

import "context"

// GetReplicaLogInfoKey is the API key kzadmin uses for the seed's
// GetReplicaLogInfo. It collides with no key Kafka has assigned.
const GetReplicaLogInfoKey int16 = 30070

// MaxPartitionsPerRequest is the seed's limit for one GetReplicaLogInfo
// request; partitions past it are answered with REQUEST_LIMIT_REACHED.
const MaxPartitionsPerRequest = 2000

// Partition names one partition of a topic.
type Partition struct {
	Topic   string
	TopicID [16]byte
	Index   int32
}

// Info is one replica's log position. LogEndOffset and LastEpoch are -1
// when unknown; ErrorCode is a Kafka error code, 0 when the broker
// answered for the partition.
type Info struct {
	Partition    Partition
	LogEndOffset int64
	LastEpoch    int32
	ErrorCode    int16
}

// Target is the broker to ask: its id and the address of the listener the
// controller reaches it on.
type Target struct {
	BrokerID int32
	Addr     string
}

// Prober asks one broker for the log positions of its replicas of parts.
// It returns one Info per requested partition, in request order, or an
// error when the broker could not be asked at all.
type Prober interface {
	Probe(ctx context.Context, t Target, parts []Partition) ([]Info, error)
}
