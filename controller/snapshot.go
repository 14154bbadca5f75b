package controller

import (
	"context"
	"slices"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// MetadataView is an immutable snapshot of the controller context, for
// the wire API's Metadata and the status page. The loop publishes a new
// one after each event that changed something; topic views that did not
// change are shared between snapshots.
type MetadataView struct {
	// Active is whether this node was the active controller when the view
	// was made; a standby's view has no brokers and no topics.
	Active bool
	// ControllerID is the active controller's id as last read (-1: none).
	ControllerID int32
	// Epoch is the controller epoch (0 when not active).
	Epoch int32
	// Brokers are the registered brokers, ascending by id, shutting-down
	// ones included; the controller itself is not among them.
	Brokers []BrokerView
	// Self is the controller as it lists itself in UpdateMetadata: its
	// node.id and endpoints, no rack.
	Self BrokerView
	// Topics maps topic name to its view.
	Topics TopicViews
	// MetadataSent is the last UpdateMetadata sent before the view was
	// made: once the brokers have answered it (Controller.
	// WaitMetadataAnswered), each of them knows what the view shows.
	MetadataSent uint64
}

// BrokerView is one registered broker.
type BrokerView struct {
	ID           int32
	Epoch        int64
	Endpoints    []znodes.Endpoint
	Rack         *string
	ShuttingDown bool
}

// TopicView is one topic.
type TopicView struct {
	Name string
	ID   znodes.UUID
	// Partitions are ordered by partition id.
	Partitions []PartitionView
	// Deleting: queued for deletion.
	Deleting bool
}

// PartitionView is one partition. Leader is -1 with no leader; a
// partition the controller has no leadership for has LeaderEpoch -1.
type PartitionView struct {
	Partition      int32
	Leader         int32
	LeaderEpoch    int32
	PartitionEpoch int32
	Replicas       []int32
	ISR            []int32
	// Offline are the replicas that are not online (dead, shutting down,
	// or on a failed log directory).
	Offline []int32
	// Adding and Removing are set during a reassignment.
	Adding   []int32
	Removing []int32
	// ELR and LastKnownELR are KIP-966's fields of the state znode.
	ELR          []int32
	LastKnownELR []int32
}

// afterEvent recomputes the metrics and publishes a new snapshot when the
// event changed something.
func (c *Controller) afterEvent() {
	if !c.viewDirty && len(c.dirtyTopic) == 0 {
		return
	}
	ls := c.leader
	if ls != nil {
		c.updateGauges(ls)
	}
	c.publishView(ls)
	c.publishStatus()
	c.viewDirty = false
	clear(c.dirtyTopic)
}

// markAllDirty makes the next snapshot rebuild every topic.
func (c *Controller) markAllDirty(ls *leaderState) {
	c.viewDirty = true
	for name := range ls.cc.topics {
		c.dirtyTopic[name] = true
	}
}

// publishView builds the next snapshot, rebuilding only changed topics.
func (c *Controller) publishView(ls *leaderState) {
	v := &MetadataView{ControllerID: c.activeID, Self: c.selfView(ls), MetadataSent: c.propagation.last()}
	if ls != nil {
		cc := ls.cc
		v.Active, v.Epoch = true, ls.epoch
		for _, id := range cc.brokerIDs() {
			b := cc.brokers[id]
			v.Brokers = append(v.Brokers, BrokerView{ID: id, Epoch: b.Epoch, Endpoints: b.Endpoints, Rack: b.Rack,
				ShuttingDown: cc.shuttingDown[id]})
		}
		var topics topicViewsEdit
		if c.lastView.Active {
			topics = c.lastView.Topics.edit()
		}
		for name := range c.dirtyTopic {
			if t := cc.topics[name]; t != nil {
				topics.set(name, topicView(cc, t))
			} else {
				topics.remove(name)
			}
		}
		if !c.lastView.Active { // first view of a leadership: every topic
			for name, t := range cc.topics {
				if !c.dirtyTopic[name] {
					topics.set(name, topicView(cc, t))
				}
			}
		}
		v.Topics = topics.done()
	}
	c.lastView = v
	c.viewMu.Lock()
	c.view.Store(v)
	close(c.viewChanged)
	c.viewChanged = make(chan struct{})
	c.viewMu.Unlock()
}

// WaitSnapshot returns the first snapshot, current or later, for which
// cond holds, or ctx's error with the latest snapshot. cond must be quick.
// Unchanged topics keep their *TopicView from one snapshot to the next,
// so a caller deriving data from snapshots can cache per topic view.
func (c *Controller) WaitSnapshot(ctx context.Context, cond func(*MetadataView) bool) (*MetadataView, error) {
	for {
		c.viewMu.Lock()
		v, changed := c.view.Load(), c.viewChanged
		c.viewMu.Unlock()
		if cond(v) {
			return v, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return c.view.Load(), ctx.Err()
		}
	}
}

func (c *Controller) selfView(ls *leaderState) BrokerView {
	v := BrokerView{ID: c.nodeID, Epoch: -1, Endpoints: c.cfg.Endpoints}
	if ls == nil {
		return v
	}
	// The rack UpdateMetadata gives this node (brokerchan.WithRack), so
	// that Metadata answers describe it as the brokers see it.
	brokers := make([]brokerchan.Broker, 0, len(ls.cc.brokers))
	for _, b := range ls.cc.brokers {
		brokers = append(brokers, b)
	}
	v.Rack = brokerchan.WithRack(brokerchan.Broker{ID: c.nodeID}, brokers).Rack
	return v
}

// topicView builds one topic's view. Its partitions' lists are carved from
// one allocation per topic: the first view of a leadership builds every
// topic, and one allocation per list would be half a million at 100k
// partitions.
func topicView(cc *clusterContext, t *topic) *TopicView {
	tv := &TopicView{Name: t.name, ID: t.id, Deleting: cc.deleting[t.name]}
	ids := make([]int32, 0, len(t.parts))
	total := 0
	for id, p := range t.parts {
		ids = append(ids, id)
		// The replicas twice: once more for the offline ones at most.
		total += 2*len(p.assign.Replicas) + len(p.assign.Adding) + len(p.assign.Removing)
		if p.lead != nil {
			total += len(p.lead.ISR) + len(p.lead.ELR) + len(p.lead.LastKnownELR)
		}
	}
	slices.Sort(ids)
	ints := int32Block(make([]int32, 0, total))
	if len(ids) > 0 { // none stays nil
		tv.Partitions = make([]PartitionView, 0, len(ids))
	}
	for _, id := range ids {
		p := t.parts[id]
		tp := TopicPartition{Topic: t.name, Partition: id}
		pv := PartitionView{
			Partition: id, Leader: election.NoLeader, LeaderEpoch: -1,
			Replicas: ints.clone(p.assign.Replicas),
			Adding:   ints.clone(p.assign.Adding), Removing: ints.clone(p.assign.Removing),
		}
		if p.lead != nil {
			pv.Leader, pv.LeaderEpoch, pv.PartitionEpoch = p.lead.Leader, p.lead.LeaderEpoch, p.lead.PartitionEpoch
			pv.ISR = ints.clone(p.lead.ISR)
			pv.ELR, pv.LastKnownELR = ints.clone(p.lead.ELR), ints.clone(p.lead.LastKnownELR)
		}
		start := len(ints)
		for _, r := range p.assign.Replicas {
			if !election.ReplicaOnline(cc, r, tp) {
				ints = append(ints, r)
			}
		}
		if len(ints) > start { // none stays nil
			pv.Offline = ints[start:len(ints):len(ints)]
		}
		tv.Partitions = append(tv.Partitions, pv)
	}
	return tv
}

// int32Block is a slice with room for every copy made from it: clone
// appends, so it never reallocates and earlier copies stay put.
type int32Block []int32

// clone copies s into the block, capped; nil stays nil (slices.Clone's
// behaviour).
func (b *int32Block) clone(s []int32) []int32 {
	if s == nil {
		return nil
	}
	start := len(*b)
	*b = append(*b, s...)
	return (*b)[start:len(*b):len(*b)]
}

// publishStatus publishes the status other goroutines read.
func (c *Controller) publishStatus() {
	s := &Status{ActiveControllerID: c.activeID, Warm: c.standby != nil}
	if ls := c.leader; ls != nil {
		s.Active, s.Ready, s.Epoch, s.EpochZkVersion = true, ls.ready, ls.epoch, ls.zkVersion
	}
	c.status.Store(s)
}
