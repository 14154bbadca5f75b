package brokerchan

import (
	"fmt"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// Broker is a registered broker as the requests describe it: the content of
// /brokers/ids/<id> plus its epoch.
type Broker struct {
	ID int32
	// Epoch is the broker epoch: the czxid of /brokers/ids/<id>. It goes
	// into the BrokerEpoch field of every request sent to this broker,
	// which the broker checks against its own registration (reference
	// §6.1).
	Epoch int64
	// Endpoints are the registration's listeners, in registration order.
	Endpoints []znodes.Endpoint
	// Rack is broker.rack, nil when the broker has none.
	Rack *string
}

// endpoint returns the endpoint on the named listener (Kafka's
// Broker.node(listenerName)).
func (b Broker) endpoint(listener string) (znodes.Endpoint, error) {
	for _, e := range b.Endpoints {
		if e.Listener == listener {
			return e, nil
		}
	}
	return znodes.Endpoint{}, &ListenerNotFoundError{Broker: b.ID, Listener: listener}
}

// ListenerNotFoundError reports a broker without an endpoint on a listener
// a request needs: the inter-broker listener for LiveLeaders, or PLAINTEXT
// for UpdateMetadata v0. Kafka throws BrokerEndPointNotAvailableException
// while building the batch, so nothing of the batch is sent.
type ListenerNotFoundError struct {
	Broker   int32
	Listener string
}

func (e *ListenerNotFoundError) Error() string {
	return fmt.Sprintf("End point with listener name %s not found for broker %d", e.Listener, e.Broker)
}

// UnsupportedEndpointError reports an endpoint that an old UpdateMetadata
// version cannot carry: v0 holds one PLAINTEXT host and port, and v1–v2
// cannot name a listener other than its security protocol's name. Kafka
// throws UnsupportedVersionException; the fix is a newer IBP.
type UnsupportedEndpointError struct {
	Version  int16
	Broker   int32
	Endpoint znodes.Endpoint
}

func (e *UnsupportedEndpointError) Error() string {
	return fmt.Sprintf("UpdateMetadataRequest v%d cannot carry endpoint %s of broker %d (custom listener names need v3+)",
		e.Version, e.Endpoint, e.Broker)
}

// securityProtocolID maps a security protocol name to the id UpdateMetadata
// carries (Kafka's SecurityProtocol.id).
func securityProtocolID(name string) (int16, error) {
	switch name {
	case znodes.ProtocolPlaintext:
		return 0, nil
	case znodes.ProtocolSSL:
		return 1, nil
	case znodes.ProtocolSASLPlaintext:
		return 2, nil
	case znodes.ProtocolSASLSSL:
		return 3, nil
	}
	return 0, fmt.Errorf("unknown security protocol %q", name)
}

// View is the part of the controller context a Batch reads (Kafka's
// ControllerChannelContext). The controller context implements it; every
// method is a map lookup there. It is read on the caller's goroutine only,
// while adding to and emitting a batch.
type View interface {
	// Liveness answers Registered (live or shutting down), ShuttingDown
	// and OfflineDir. UpdateMetadata's OfflineReplicas are the assigned
	// replicas that are not election.ReplicaOnline.
	election.Liveness
	// Broker returns a registered broker (live or shutting down). Requests
	// go only to brokers it knows, with the epoch it returns.
	Broker(id int32) (Broker, bool)
	// Brokers returns every registered broker, in any order. They are
	// UpdateMetadata's LiveBrokers, and the brokers that receive
	// UpdateMetadata for partitions added with AddLeaderAndIsr.
	Brokers() []Broker
	// TopicID returns the topic's id, if it has one.
	TopicID(topic string) (znodes.UUID, bool)
	// QueuedForDeletion reports whether the topic is in topicsToBeDeleted.
	QueuedForDeletion(topic string) bool
	// Replicas returns the partition's full replica list (adding and
	// removing replicas included).
	Replicas(tp election.TopicPartition) []int32
	// Leadership returns the partition's cached leadership, with the
	// controller epoch that wrote it and its znode version as the
	// partition epoch.
	Leadership(tp election.TopicPartition) (election.LeaderAndIsr, bool)
}

// leaderEpochForStop is Kafka's ControllerContext.leaderEpoch, the epoch a
// StopReplica carries: -2 (EPOCH_DURING_DELETE) when the topic is queued for
// deletion, which a broker accepts whatever its own epoch; else the cached
// leader epoch; else -1 (NO_EPOCH), which a broker also always accepts.
func leaderEpochForStop(v View, tp election.TopicPartition) int32 {
	if v.QueuedForDeletion(tp.Topic) {
		return EpochDuringDelete
	}
	if l, ok := v.Leadership(tp); ok {
		return l.LeaderEpoch
	}
	return NoEpoch
}

// Leader epochs with a special meaning in StopReplica (Kafka's LeaderAndIsr
// constants).
const (
	// NoEpoch is sent when the controller knows no leader epoch.
	NoEpoch int32 = -1
	// EpochDuringDelete is sent for partitions of a topic queued for
	// deletion.
	EpochDuringDelete int32 = -2
)
