package controller

import (
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// onTopicChange handles a change of /brokers/topics's children read on the
// loop: new topics get their partitions created and brought online. A
// watch firing lists the children off the loop instead (topic_list.go).
func (c *Controller) onTopicChange(ls *leaderState) error {
	names, err := ls.watches.children(ls.ctx, c.zk, znodes.TopicsPath)
	if err != nil {
		return fmt.Errorf("list %s: %w", znodes.TopicsPath, err)
	}
	return c.applyTopicList(ls, names, ls.creates.seq)
}

// applyTopicList brings the context in line with names, a listing of
// /brokers/topics sent after the create multis numbered up to listedSeq
// had been applied (createdTopics): topics not in the context are read
// and brought online, topics missing from the listing leave the context,
// except those a later create multi made, which the listing may predate.
func (c *Controller) applyTopicList(ls *leaderState, names []string, listedSeq uint64) error {
	ls.creates.listed(listedSeq)
	cc := ls.cc
	var fresh []string
	known := 0
	for _, n := range names {
		if cc.topics[n] == nil {
			fresh = append(fresh, n)
		} else {
			known++
		}
	}
	// Children are unique: when the listing holds every topic of the
	// context, none is gone, and the listing (as long as the cluster) need
	// not be indexed.
	if known < len(cc.topics) {
		listed := make(map[string]bool, len(names))
		for _, n := range names {
			listed[n] = true
		}
		var gone []string
		for n := range cc.topics {
			if !listed[n] && !ls.creates.newerThanListing(n) {
				gone = append(gone, n)
			}
		}
		slices.Sort(gone)
		for _, n := range gone {
			// Normally after our own deletion; otherwise removed behind
			// the controller's back.
			cc.removeTopic(n)
			c.markDirty(TopicPartition{Topic: n})
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	return c.addTopics(ls, fresh)
}

// addTopics reads topics the context does not have and brings them
// online. One whose znode is gone, or does not decode, is left out (and
// logged); its data watch stays armed, so a fix of its znode comes back
// through onPartitionModifications.
func (c *Controller) addTopics(ls *leaderState, fresh []string) error {
	cc := ls.cc
	slices.Sort(fresh)
	reads, err := c.readTopics(ls.ctx, ls, fresh)
	if err != nil {
		return err
	}
	var added []TopicPartition
	for _, n := range fresh {
		r, ok := reads[n]
		if !ok {
			continue
		}
		a, err := c.prepareTopic(ls, n, r, nil)
		if err != nil {
			return err
		}
		cc.putTopic(n, a)
		for _, p := range a.PartitionIDs() {
			added = append(added, TopicPartition{Topic: n, Partition: p})
		}
		c.markDirty(TopicPartition{Topic: n})
	}
	c.log.Info().Strs("topics", fresh).Int("partitions", len(added)).Msg("new topics")
	return c.onNewPartitionCreation(ls, added)
}

// onPartitionModifications handles a data change of /brokers/topics/<t>:
// partitions added by an admin are created and brought online. Changes to
// existing partitions are ignored, as in Kafka (reassignments go through
// their own path).
func (c *Controller) onPartitionModifications(ls *leaderState, name string) error {
	t := ls.cc.topics[name]
	data, stat, err := ls.watches.get(ls.ctx, c.zk, znodes.TopicPath(name))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read topic %s: %w", name, err)
	}
	if t == nil {
		// A topic listed earlier whose znode did not decode then, fixed
		// since: it is new now. Kafka keeps such a topic among its topics
		// with its modification handler, and creates its partitions when
		// the znode changes.
		return c.addTopics(ls, []string{name})
	}
	a, err := znodes.DecodeTopicAssignment(name, data)
	if err != nil {
		c.log.Error().Err(err).Msg("ignoring a topic assignment that does not decode")
		return nil
	}
	var toAdd []int32
	for _, p := range a.PartitionIDs() {
		if t.parts[p] == nil {
			toAdd = append(toAdd, p)
		}
	}
	if len(toAdd) == 0 && !(a.TopicID.IsZero() && c.ibp.TopicIDsSupported()) {
		return nil
	}
	if ls.cc.deleting[name] && len(toAdd) > 0 {
		return c.revertAddedPartitions(ls, name, stat.Version)
	}
	a, err = c.prepareTopic(ls, name, topicRead{assignment: a, version: stat.Version}, toAdd)
	if err != nil {
		return err
	}
	ls.cc.putTopic(name, keepKnown(t, a))
	added := make([]TopicPartition, len(toAdd))
	for i, p := range toAdd {
		added[i] = TopicPartition{Topic: name, Partition: p}
	}
	c.markDirty(TopicPartition{Topic: name})
	if len(added) == 0 {
		return nil
	}
	c.log.Info().Str("topic", name).Int("partitions", len(added)).Msg("partitions added")
	return c.onNewPartitionCreation(ls, added)
}

// keepKnown is a, a topic's assignment as read, with the known partitions'
// replicas as the context has them (changes to those go through
// reassignment), and the topic's id when the znode lost it (from IBP 2.8,
// prepareTopic has just written it back).
func keepKnown(t *topic, a znodes.TopicAssignment) znodes.TopicAssignment {
	merged := a
	if merged.TopicID.IsZero() {
		merged.TopicID = t.id
	}
	merged.Partitions = map[int32][]int32{}
	for p, replicas := range a.Partitions {
		if old := t.parts[p]; old != nil {
			replicas = old.assign.Replicas
		}
		merged.Partitions[p] = replicas
	}
	return merged
}

// onNewPartitionCreation is Kafka's: partitions and their replicas become
// New, the partitions go Online (initial leader and ISR written), then the
// replicas go Online (no request: they learnt everything from the
// LeaderAndIsr with isNew=true).
func (c *Controller) onNewPartitionCreation(ls *leaderState, tps []TopicPartition) error {
	var replicas []replicaKey
	for _, tp := range tps {
		p := ls.cc.partition(tp)
		if p == nil || !election.ValidPartitionTransition(p.state, election.NewPartition) {
			continue
		}
		c.setPartitionState(tp, p, election.NewPartition)
		for _, r := range p.assign.Replicas {
			replicas = append(replicas, replicaKey{tp, r})
		}
	}
	c.setReplicasState(ls, replicas, election.NewReplica)
	if _, err := c.partitionsToOnline(ls, tps, election.Offline(false)); err != nil {
		return err
	}
	c.replicasToOnline(ls, replicas)
	return nil
}

// prepareTopic makes a topic's assignment fit to bring online, before its
// partitions are created: it gives the topic an id when it has none (IBP
// 2.8+), and re-places any replica assigned to the controller's own id (a
// broker auto-creating a topic places replicas over every node in its
// metadata, the controller included) on the least loaded live broker not
// already hosting the partition. Only the partitions in only (all when nil)
// are re-placed. The znode is rewritten under the fence, conditionally on
// the version read; when it changed meanwhile it is read again.
func (c *Controller) prepareTopic(ls *leaderState, name string, r topicRead, only []int32) (znodes.TopicAssignment, error) {
	for attempt := 0; ; attempt++ {
		a, changed, err := c.fixAssignment(ls, name, r.assignment, only)
		if err != nil || !changed {
			return a, err
		}
		data, err := a.Encode()
		if err != nil {
			return r.assignment, err
		}
		res, err := c.fencedWrite(ls.ctx, ls, []zkadmin.Op{zkadmin.SetOp(znodes.TopicPath(name), data, r.version)})
		if err != nil {
			return r.assignment, err
		}
		if res[0].Err == nil {
			return a, nil
		}
		if !errors.Is(res[0].Err, zkadmin.ErrBadVersion) || attempt == 3 {
			c.log.Error().Err(res[0].Err).Str("topic", name).Msg("could not rewrite the topic assignment")
			return r.assignment, nil
		}
		data, stat, err := c.zk.Get(ls.ctx, znodes.TopicPath(name))
		if err != nil {
			return r.assignment, fmt.Errorf("re-read topic %s: %w", name, err)
		}
		if r.assignment, err = znodes.DecodeTopicAssignment(name, data); err != nil {
			return r.assignment, err
		}
		r.version = stat.Version
	}
}

// fixAssignment returns the assignment with a topic id and without the
// controller among the replicas of the partitions in only.
func (c *Controller) fixAssignment(ls *leaderState, name string, a znodes.TopicAssignment, only []int32) (znodes.TopicAssignment, bool, error) {
	changed := false
	if a.TopicID.IsZero() && c.ibp.TopicIDsSupported() {
		// A known topic whose znode lost its id (a tool older than 2.8
		// adding partitions rewrites it without one) keeps the id it has:
		// its partitions' logs carry it, and a broker refuses a
		// LeaderAndIsr naming another (INCONSISTENT_TOPIC_ID). Kafka's
		// controller keeps it too.
		id, known := ls.cc.TopicID(name)
		if !known {
			var err error
			if id, err = znodes.NewTopicID(rand.Reader); err != nil {
				return a, false, err
			}
		}
		a.TopicID, changed = id, true
	}
	var load map[int32]int
	parts := maps.Clone(a.Partitions)
	for _, p := range a.PartitionIDs() {
		if only != nil && !slices.Contains(only, p) {
			continue
		}
		if !slices.Contains(parts[p], c.nodeID) {
			continue
		}
		if load == nil {
			load = replicaLoad(ls.cc)
		}
		fixed, ok := replaceReplica(parts[p], c.nodeID, ls.cc.liveBrokerIDs(), load, ls.cc.rackOf)
		if !ok {
			c.log.Error().Str("topic", name).Int32("partition", p).
				Msg("partition assigned to the controller's id and no broker can take the replica")
			continue
		}
		c.log.Warn().Str("topic", name).Int32("partition", p).Ints32("replicas", fixed).
			Msg("re-placed a replica assigned to the controller's id")
		parts[p], changed = fixed, true
	}
	a.Partitions = parts
	return a, changed, nil
}

// replaceReplica swaps id out of replicas for the best candidate that is
// not already a replica: first one whose rack no other replica uses (as
// rack-aware placement would have chosen; rackOf returns "" for a broker
// without a rack, which counts as sharing no rack), then the one hosting the
// fewest replicas, then the lowest id. load is updated so that successive
// calls spread the replicas.
func replaceReplica(replicas []int32, id int32, candidates []int32, load map[int32]int,
	rackOf func(int32) string) ([]int32, bool) {
	used := map[string]bool{}
	for _, r := range replicas {
		if rack := rackOf(r); r != id && rack != "" {
			used[rack] = true
		}
	}
	newRack := func(b int32) bool { return !used[rackOf(b)] }
	var best int32 = -1
	for _, b := range candidates {
		if b == id || slices.Contains(replicas, b) {
			continue
		}
		switch {
		case best < 0:
		case newRack(b) != newRack(best):
			if !newRack(b) {
				continue
			}
		case load[b] > load[best] || (load[b] == load[best] && b > best):
			continue
		}
		best = b
	}
	if best < 0 {
		return replicas, false
	}
	out := slices.Clone(replicas)
	for i, r := range out {
		if r == id {
			out[i] = best
		}
	}
	load[best]++
	return out, true
}

// replicaLoad counts the replicas each broker hosts.
func replicaLoad(cc *clusterContext) map[int32]int {
	load := map[int32]int{}
	for _, t := range cc.topics {
		for _, p := range t.parts {
			for _, r := range p.assign.Replicas {
				load[r]++
			}
		}
	}
	return load
}

// rackOf returns a registered broker's rack, "" when it has none or is not
// registered.
func (cc *clusterContext) rackOf(id int32) string {
	if b, ok := cc.brokers[id]; ok && b.Rack != nil {
		return *b.Rack
	}
	return ""
}
