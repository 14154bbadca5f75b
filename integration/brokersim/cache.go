package brokersim

import (
	"fmt"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/znodes"
)

// metadataCache is Kafka's ZkMetadataCache reduced to what the simulator
// serves: the live brokers and controller id (replaced by every
// UpdateMetadata) and the partition states (merged). Partitions are kept in
// a slice per topic, not a map entry each, so a hundred brokers caching a
// hundred thousand partitions stay small.
type metadataCache struct {
	controllerID int32
	live         []LiveBroker // sorted by id
	topics       map[string]*cachedTopic
	partitions   int
}

type cachedTopic struct {
	id    znodes.UUID
	parts []*PartitionMeta // indexed by partition; nil where unknown
	count int
}

func newMetadataCache() metadataCache {
	return metadataCache{controllerID: -1, topics: make(map[string]*cachedTopic)}
}

// liveBroker returns the live broker with this id.
func (c *metadataCache) liveBroker(id int32) (LiveBroker, bool) {
	i, ok := slices.BinarySearchFunc(c.live, id, func(l LiveBroker, id int32) int { return int(l.ID) - int(id) })
	if !ok {
		return LiveBroker{}, false
	}
	return c.live[i], true
}

// aliveOn reports whether id is live with an endpoint on listener, which is
// what "alive" means to Kafka's metadata answers.
func (c *metadataCache) aliveOn(id int32, listener string) bool {
	l, ok := c.liveBroker(id)
	if !ok {
		return false
	}
	_, ok = l.Endpoint(listener)
	return ok
}

func (c *metadataCache) get(tp TopicPartition) (*PartitionMeta, bool) {
	t := c.topics[tp.Topic]
	if t == nil || tp.Partition < 0 || int(tp.Partition) >= len(t.parts) || t.parts[tp.Partition] == nil {
		return nil, false
	}
	return t.parts[tp.Partition], true
}

func (c *metadataCache) put(tp TopicPartition, p *PartitionMeta) {
	if tp.Partition < 0 {
		return
	}
	t := c.topics[tp.Topic]
	if t == nil {
		t = &cachedTopic{}
		c.topics[tp.Topic] = t
	}
	if n := int(tp.Partition) + 1; n > len(t.parts) {
		t.parts = slices.Grow(t.parts, n-len(t.parts))[:n]
	}
	if t.parts[tp.Partition] == nil {
		t.count++
		c.partitions++
	}
	t.parts[tp.Partition] = p
}

// remove drops a partition, and its topic with its last partition (Kafka
// does this for leader -2, LEADER_DURING_DELETE).
func (c *metadataCache) remove(tp TopicPartition) {
	t := c.topics[tp.Topic]
	if t == nil || tp.Partition < 0 || int(tp.Partition) >= len(t.parts) || t.parts[tp.Partition] == nil {
		return
	}
	t.parts[tp.Partition] = nil
	t.count--
	c.partitions--
	if t.count == 0 {
		delete(c.topics, tp.Topic)
	}
}

// setTopicID records a topic's id from UpdateMetadata v7+; the zero id
// erases it, as a broker does.
func (c *metadataCache) setTopicID(topic string, id znodes.UUID) {
	if t := c.topics[topic]; t != nil {
		t.id = id
	}
}

// topicByID finds a cached topic by id.
func (c *metadataCache) topicByID(id znodes.UUID) (string, bool) {
	for name, t := range c.topics {
		if t.id == id {
			return name, true
		}
	}
	return "", false
}

// interner shares identical partition states between the brokers of a
// Cluster: after a controller sends the same UpdateMetadata to every
// broker, each partition is held once. It is indexed like the cache (topic,
// then a slice by partition) and locked once per request.
type interner struct {
	mu     sync.Mutex
	topics map[string]*internTopic
}

type internTopic struct {
	parts []*PartitionMeta
}

func newInterner() *interner { return &interner{topics: make(map[string]*internTopic)} }

// topicLocked returns a topic's table, creating it.
func (in *interner) topicLocked(name string) *internTopic {
	t := in.topics[name]
	if t == nil {
		t = &internTopic{}
		in.topics[name] = t
	}
	return t
}

// internLocked returns the shared PartitionMeta equal to p, allocating one
// only when the partition's state is new to the cluster. Leader -2 (the
// topic is being deleted) forgets the partition and returns nil.
func (t *internTopic) internLocked(p *kmsg.UpdateMetadataRequestTopicPartition) *PartitionMeta {
	i := int(p.Partition)
	if p.Leader == leaderDuringDelete {
		if i >= 0 && i < len(t.parts) {
			t.parts[i] = nil
		}
		return nil
	}
	if i >= 0 && i < len(t.parts) {
		if q := t.parts[i]; q != nil && q.ControllerEpoch == p.ControllerEpoch && q.Leader == p.Leader &&
			q.LeaderEpoch == p.LeaderEpoch && q.ZkVersion == p.ZKVersion && slices.Equal(q.ISR, p.ISR) &&
			slices.Equal(q.Replicas, p.Replicas) && slices.Equal(q.OfflineReplicas, p.OfflineReplicas) {
			return q
		}
	}
	q := &PartitionMeta{
		ControllerEpoch: p.ControllerEpoch,
		Leader:          p.Leader,
		LeaderEpoch:     p.LeaderEpoch,
		ISR:             p.ISR,
		ZkVersion:       p.ZKVersion,
		Replicas:        p.Replicas,
		OfflineReplicas: p.OfflineReplicas,
	}
	if i >= 0 {
		if i >= len(t.parts) {
			t.parts = slices.Grow(t.parts, i+1-len(t.parts))[:i+1]
		}
		t.parts[i] = q
	}
	return q
}

// securityProtocolName maps UpdateMetadata's security protocol ids.
func securityProtocolName(id int16) (string, error) {
	switch id {
	case 0:
		return znodes.ProtocolPlaintext, nil
	case 1:
		return znodes.ProtocolSSL, nil
	case 2:
		return znodes.ProtocolSASLPlaintext, nil
	case 3:
		return znodes.ProtocolSASLSSL, nil
	}
	return "", fmt.Errorf("unknown security protocol id %d", id)
}

// liveBrokersFrom converts UpdateMetadata's live brokers: v0 carries one
// PLAINTEXT host and port, v1-v2 endpoints named by their protocol, v3+
// endpoints with listener names.
func liveBrokersFrom(version int16, in []kmsg.UpdateMetadataRequestLiveBroker) ([]LiveBroker, error) {
	out := make([]LiveBroker, 0, len(in))
	for _, b := range in {
		lb := LiveBroker{ID: b.ID, Rack: b.Rack}
		if version == 0 {
			lb.Endpoints = []znodes.Endpoint{{Listener: znodes.ProtocolPlaintext, Host: b.Host,
				Port: b.Port, SecurityProtocol: znodes.ProtocolPlaintext}}
		}
		for _, e := range b.Endpoints {
			proto, err := securityProtocolName(e.SecurityProtocol)
			if err != nil {
				return nil, fmt.Errorf("live broker %d: %w", b.ID, err)
			}
			listener := proto
			if version >= 3 {
				listener = e.ListenerName
			}
			lb.Endpoints = append(lb.Endpoints, znodes.Endpoint{Listener: listener, Host: e.Host,
				Port: e.Port, SecurityProtocol: proto})
		}
		out = append(out, lb)
	}
	slices.SortFunc(out, func(a, b LiveBroker) int { return int(a.ID) - int(b.ID) })
	return slices.CompactFunc(out, func(a, b LiveBroker) bool { return a.ID == b.ID }), nil
}
