package brokerchan

import (
	"cmp"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// DefaultInterBrokerListener is the listener name Kafka derives from the
// default security.inter.broker.protocol.
const DefaultInterBrokerListener = znodes.ProtocolPlaintext

// Config is what a Batch needs to know about the controller itself.
type Config struct {
	// ControllerID is the controller's node.id, sent as ControllerId.
	ControllerID int32
	// IBP is the controller's inter.broker.protocol.version; it decides
	// every request version. Set it: the zero value is 0.8.0, the oldest.
	IBP config.IBP
	// InterBrokerListener names the listener whose endpoints LeaderAndIsr
	// lists in LiveLeaders ("" means DefaultInterBrokerListener).
	InterBrokerListener string
	// Self, when set, is listed among every UpdateMetadata's LiveBrokers
	// (design brief §3: brokers and clients find the controller only
	// there). It never receives requests itself.
	Self *Broker
}

// Request is one request for one broker. Msg is a *kmsg.LeaderAndISRRequest,
// *kmsg.UpdateMetadataRequest or *kmsg.StopReplicaRequest with its Version
// set. The UpdateMetadata requests of one Emit share their partition and
// broker slices; treat every Msg as read-only.
type Request struct {
	Broker int32
	Msg    kmsg.Request
}

// leaderAndIsrEntry is the partition state of one AddLeaderAndIsr call,
// shared by every broker of the call.
type leaderAndIsrEntry struct {
	state      election.LeaderAndIsr
	assignment election.ReplicaAssignment
}

// updateMetadataEntry is one partition's pending UpdateMetadata state, taken
// from the view when it was added.
type updateMetadataEntry struct {
	tp       election.TopicPartition
	state    election.LeaderAndIsr
	replicas []int32
	offline  []int32
}

// stopReplicaEntry is one partition's pending StopReplica state.
type stopReplicaEntry struct {
	tp          election.TopicPartition
	leaderEpoch int32
	delete      bool
}

// Batch accumulates the control requests of one controller decision and
// emits them per broker in Kafka's order (Kafka's
// ControllerBrokerRequestBatch, reference §5.2). It is pure: no I/O, no
// goroutines. Use one Batch per event, on the event loop's goroutine.
//
// Partition state is read at add time (the LeaderAndIsr state passed in,
// the view's leadership for UpdateMetadata, the leader epoch for
// StopReplica); brokers, their epochs and endpoints, and topic ids are read
// at Emit time.
//
// Adds are cheapest in partition order (batch_pending.go): the requests
// list partitions sorted whatever the add order, but in-order adds need no
// sort and no per-partition map.
type Batch struct {
	cfg  Config
	view View

	leaderAndIsr   map[int32]*pendingList[laiRef]
	laiEntries     chunks[leaderAndIsrEntry]
	umBrokers      map[int32]struct{}
	umPartitions   pendingList[updateMetadataEntry]
	stopReplica    map[int32]*pendingList[stopReplicaEntry]
	umAll          bool // UpdateMetadata to every broker registered at Emit
	slab           int32Slab
	interListener  string
	requestVersion RequestVersions
}

// NewBatch returns an empty batch reading the controller context view.
func NewBatch(cfg Config, view View) *Batch {
	b := &Batch{cfg: cfg, view: view, interListener: cfg.InterBrokerListener}
	if b.interListener == "" {
		b.interListener = DefaultInterBrokerListener
	}
	b.requestVersion = RequestVersionsAt(cfg.IBP)
	b.Clear()
	return b
}

// Clear drops everything added.
func (b *Batch) Clear() {
	b.leaderAndIsr = map[int32]*pendingList[laiRef]{}
	b.laiEntries = chunks[leaderAndIsrEntry]{}
	b.umBrokers = map[int32]struct{}{}
	b.umPartitions = pendingList[updateMetadataEntry]{}
	b.stopReplica = map[int32]*pendingList[stopReplicaEntry]{}
	b.umAll = false
	// The emitted requests point into the slab's chunks: start new ones.
	b.slab = int32Slab{}
}

// Empty reports whether nothing was added since the last Emit or Clear.
func (b *Batch) Empty() bool {
	return len(b.leaderAndIsr) == 0 && len(b.stopReplica) == 0 && len(b.umBrokers) == 0 && !b.umAll
}

// AddLeaderAndIsr queues LeaderAndIsr for tp to each of brokers (ids < 0
// are dropped) and UpdateMetadata for tp to every registered broker. A
// later add for the same broker and partition replaces the state, except
// that isNew stays true once set. state.PartitionEpoch must be the state
// znode's version and state.ControllerEpoch the epoch that wrote it.
func (b *Batch) AddLeaderAndIsr(brokers []int32, tp election.TopicPartition, state election.LeaderAndIsr,
	assignment election.ReplicaAssignment, isNew bool) {
	// One copy shared by every broker's entry: requests only read it.
	entry := b.laiEntries.push(leaderAndIsrEntry{
		state:      b.slab.cloneState(state),
		assignment: b.slab.cloneAssignment(assignment),
	})
	for _, id := range brokers {
		if id < 0 {
			continue
		}
		pending(b.leaderAndIsr, id).add(laiRef{tp: tp, entry: entry, isNew: isNew})
	}
	b.AddUpdateMetadataToAll(tp)
}

// pending returns broker id's list in m, creating it.
func pending[T pendingItem[T]](m map[int32]*pendingList[T], id int32) *pendingList[T] {
	l := m[id]
	if l == nil {
		l = &pendingList[T]{}
		m[id] = l
	}
	return l
}

// AddUpdateMetadata queues UpdateMetadata to each of brokers (ids < 0 are
// dropped) carrying the given partitions, as the view has them now. The
// same partition list goes to every broker of the batch. Partitions without
// leadership are skipped. For topics queued for deletion the state sent is
// leader -2, leader epoch 0, partition epoch 0, ISR kept, which makes
// brokers drop the partition. With no partitions it still sends
// UpdateMetadata (Kafka's "empty UpdateMetadata" that refreshes the live
// broker list).
func (b *Batch) AddUpdateMetadata(brokers []int32, partitions ...election.TopicPartition) {
	for _, id := range brokers {
		if id >= 0 {
			b.umBrokers[id] = struct{}{}
		}
	}
	for _, tp := range partitions {
		b.addUpdateMetadataPartition(tp)
	}
}

// AddUpdateMetadataToAll is AddUpdateMetadata to every registered broker.
//
// Kafka adds the brokers registered at add time, and sends to those still
// registered at send time. This batch sends to the brokers registered at
// Emit time instead, which costs nothing per add (Kafka's way costs a set
// insert per broker per LeaderAndIsr partition: a million for 10k
// partitions on 100 brokers). The two differ only if the context's broker
// set changes while a batch is being filled, which the event loop, the
// only writer of both, does not do.
func (b *Batch) AddUpdateMetadataToAll(partitions ...election.TopicPartition) {
	b.umAll = true
	for _, tp := range partitions {
		b.addUpdateMetadataPartition(tp)
	}
}

func (b *Batch) addUpdateMetadataPartition(tp election.TopicPartition) {
	state, ok := b.view.Leadership(tp)
	if !ok {
		return
	}
	if b.view.QueuedForDeletion(tp.Topic) {
		state = election.LeaderAndIsr{
			Leader:          election.LeaderDuringDelete,
			ISR:             state.ISR,
			ControllerEpoch: state.ControllerEpoch,
		}
	}
	e := updateMetadataEntry{tp: tp, state: b.slab.cloneState(state), replicas: b.slab.clone(b.view.Replicas(tp))}
	var buf [8]int32
	offline := buf[:0]
	for _, r := range e.replicas {
		if !election.ReplicaOnline(b.view, r, tp) {
			offline = append(offline, r)
		}
	}
	if len(offline) > 0 { // none stays nil
		e.offline = b.slab.clone(offline)
	}
	b.umPartitions.add(e)
}

// AddStopReplica queues StopReplica for tp to each of brokers (ids < 0 are
// dropped). deletePartition stays true once set for a broker and
// partition. The leader epoch sent is taken now: -2 if the topic is queued
// for deletion, else the cached leader epoch, else -1.
func (b *Batch) AddStopReplica(brokers []int32, tp election.TopicPartition, deletePartition bool) {
	epoch := leaderEpochForStop(b.view, tp)
	for _, id := range brokers {
		if id < 0 {
			continue
		}
		pending(b.stopReplica, id).add(stopReplicaEntry{tp: tp, leaderEpoch: epoch, delete: deletePartition})
	}
}

// Emit builds the requests for everything added, in Kafka's send order:
// every LeaderAndIsr, then every UpdateMetadata, then every StopReplica;
// within each kind by broker id. Brokers that are no longer registered get
// nothing. The batch is empty afterwards, whether or not Emit fails; on an
// error (a broker lacking a listener the requests need) nothing is
// returned, as Kafka sends nothing of a batch whose building throws.
func (b *Batch) Emit(controllerEpoch int32) ([]Request, error) {
	defer b.Clear()
	lai, err := b.leaderAndIsrRequests(controllerEpoch)
	if err != nil {
		return nil, err
	}
	um, err := b.updateMetadataRequests(controllerEpoch)
	if err != nil {
		return nil, err
	}
	out := append(lai, um...)
	return append(out, b.stopReplicaRequests(controllerEpoch)...), nil
}

// sortedBrokers returns the keys of m that are registered brokers,
// ascending, with their registrations.
func sortedBrokers[V any](view View, m map[int32]V) []Broker {
	out := make([]Broker, 0, len(m))
	for _, id := range slices.Sorted(maps.Keys(m)) {
		if br, ok := view.Broker(id); ok {
			out = append(out, br)
		}
	}
	return out
}

func comparePartitions(a, b election.TopicPartition) int {
	if c := cmp.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// topicID returns the view's id for topic, or the zero id, which is what
// Kafka sends for a topic without one.
func (b *Batch) topicID(topic string) [16]byte {
	id, _ := b.view.TopicID(topic)
	return id
}
