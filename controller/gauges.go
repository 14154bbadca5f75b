package controller

import "github.com/kzadmin/kzadmin/controller/election"

// gaugeCounts keeps each topic's share of the partition gauges, so that
// after an event only the topics it changed (c.dirtyTopic, the same set
// the snapshot rebuilds) are counted again, not every partition: walking
// 100k partitions after every event costs milliseconds each time, and the
// event's snapshot (which CreateTopics waits for) goes out after it.
type gaugeCounts struct {
	counted bool // every topic is in topics (after a leadership's first count)
	topics  map[string]topicCounts
	total   topicCounts
}

// topicCounts is one topic's share of the gauges (Kafka's updateMetrics):
// partitions with leadership (partitionWithLeadersCount: a partition
// whose state znode was never written or read is not counted); offline
// ones, of topics whose deletion has not started (Kafka's
// updatePartitionStateMetrics; a started deletion moves the partitions to
// NonExistentPartition, StartTopicDeletion); those not led by their
// preferred replica, of topics not queued for deletion
// (updatePreferredReplicaImbalanceMetric); and those holding KIP-966 ELR
// state.
type topicCounts struct {
	partitions, offline, imbalance, withELR, withLastKnownELR int
}

func (a *topicCounts) add(b topicCounts, sign int) {
	a.partitions += sign * b.partitions
	a.offline += sign * b.offline
	a.imbalance += sign * b.imbalance
	a.withELR += sign * b.withELR
	a.withLastKnownELR += sign * b.withLastKnownELR
}

// countTopic counts t, named name.
func countTopic(cc *clusterContext, name string, t *topic) topicCounts {
	var n topicCounts
	deleting := cc.deleting[name]
	for _, p := range t.parts {
		if p.state == election.OfflinePartition {
			n.offline++
		}
		if p.lead == nil {
			continue
		}
		n.partitions++
		if len(p.lead.ELR) > 0 {
			n.withELR++
		}
		if len(p.lead.LastKnownELR) > 0 {
			n.withLastKnownELR++
		}
		if !deleting && !election.HasPreferredLeader(p.assign, *p.lead) {
			n.imbalance++
		}
	}
	return n
}

// recount replaces name's counts with those of its topic as the context
// holds it now (none when it is gone).
func (g *gaugeCounts) recount(cc *clusterContext, name string) {
	g.total.add(g.topics[name], -1)
	t := cc.topics[name]
	if t == nil {
		delete(g.topics, name)
		return
	}
	n := countTopic(cc, name, t)
	g.topics[name] = n
	g.total.add(n, 1)
}

// updateGauges brings the gauges up to date after an event: every topic
// on a leadership's first call, then the topics the event changed.
func (c *Controller) updateGauges(ls *leaderState) {
	g := &ls.gauges
	if !g.counted {
		*g = gaugeCounts{counted: true, topics: make(map[string]topicCounts, len(ls.cc.topics))}
		for name := range ls.cc.topics {
			g.recount(ls.cc, name)
		}
	} else {
		for name := range c.dirtyTopic {
			g.recount(ls.cc, name)
		}
	}
	c.metrics.offline.Set(float64(g.total.offline))
	c.metrics.partitions.Set(float64(g.total.partitions))
	c.metrics.topics.Set(float64(len(ls.cc.topics)))
	c.metrics.imbalance.Set(float64(g.total.imbalance))
	if c.elrOn() {
		c.elrMetrics.withELR.Set(float64(g.total.withELR))
		c.elrMetrics.withLastKnown.Set(float64(g.total.withLastKnownELR))
	}
}
