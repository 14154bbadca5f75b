package controller

import (
	"errors"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// newBatch starts a request batch reading this leadership's context. Each
// state-machine step uses its own batch and sends it when done, as Kafka's
// handleStateChanges does.
func (c *Controller) newBatch(ls *leaderState) *brokerchan.Batch {
	cfg := brokerchan.Config{
		ControllerID:        c.nodeID,
		IBP:                 c.ibp,
		InterBrokerListener: c.conf.EffectiveInterBrokerListenerName(),
	}
	if len(c.cfg.Endpoints) > 0 {
		cfg.Self = &brokerchan.Broker{ID: c.nodeID, Epoch: -1, Endpoints: c.cfg.Endpoints}
	}
	return brokerchan.NewBatch(cfg, ls.cc)
}

// send emits the batch and queues each request on its broker's channel.
// LeaderAndIsr responses come back as events. A batch that cannot be built
// (a broker without the inter-broker listener) is logged and dropped:
// Kafka resigns for its own batches then, which cures nothing.
func (c *Controller) send(ls *leaderState, b *brokerchan.Batch) {
	if b.Empty() {
		return
	}
	reqs, err := b.Emit(ls.epoch)
	if err != nil {
		c.log.Error().Err(err).Msg("cannot build controller requests; batch dropped")
		return
	}
	ums := 0
	for _, r := range reqs {
		if _, ok := r.Msg.(*kmsg.UpdateMetadataRequest); ok {
			ums++
		}
	}
	var umAnswered func()
	if ums > 0 {
		_, umAnswered = c.propagation.send(ums)
	}
	for _, r := range reqs {
		var cb brokerchan.Callback
		broker := r.Broker
		switch r.Msg.(type) {
		case *kmsg.LeaderAndISRRequest:
			cb = func(resp kmsg.Response, err error) {
				if lr, ok := resp.(*kmsg.LeaderAndISRResponse); ok && err == nil {
					c.queue.push(&leaderAndIsrResponseEvent{gen: ls, broker: broker, resp: lr})
				}
			}
		case *kmsg.UpdateMetadataRequest:
			answered := umAnswered
			cb = func(resp kmsg.Response, err error) {
				defer answered()
				if um, ok := resp.(*kmsg.UpdateMetadataResponse); ok && err == nil {
					if err := brokerchan.UpdateMetadataError(um); err != nil {
						c.log.Warn().Err(err).Int32("broker", broker).Msg("UpdateMetadata refused")
					}
				}
			}
		}
		if err := ls.chans.Send(r.Broker, r.Msg, cb); err != nil {
			if _, ok := r.Msg.(*kmsg.UpdateMetadataRequest); ok {
				umAnswered() // never sent: nothing to wait for
			}
			if !errors.Is(err, brokerchan.ErrUnknownBroker) {
				c.log.Warn().Err(err).Int32("broker", r.Broker).Msg("request dropped")
			}
		}
	}
}

// sendUpdateMetadata sends UpdateMetadata for partitions (none: only the
// live broker list) to brokers, in a batch of its own.
func (c *Controller) sendUpdateMetadata(ls *leaderState, brokers []int32, tps ...TopicPartition) {
	b := c.newBatch(ls)
	b.AddUpdateMetadata(brokers, tps...)
	c.send(ls, b)
}

// addChannel opens (or replaces) the channel to a broker on the
// control-plane listener when control.plane.listener.name is set, else the
// inter-broker listener, as Kafka's ControllerChannelManager does.
func (c *Controller) addChannel(ls *leaderState, b brokerchan.Broker) {
	listener := c.conf.ControllerToBrokerListenerName()
	ep, ok := endpointOn(b.Endpoints, listener)
	if !ok {
		c.log.Error().Int32("broker", b.ID).Str("listener", listener).
			Msg("broker has no endpoint on the controller-to-broker listener; it will get no requests")
		ls.chans.RemoveBroker(b.ID)
		return
	}
	addr := net.JoinHostPort(ep.Host, strconv.Itoa(int(ep.Port)))
	if err := ls.chans.AddBroker(b.ID, addr, b.Epoch); err != nil {
		c.log.Error().Err(err).Int32("broker", b.ID).Msg("open broker channel")
	}
}

func endpointOn(eps []znodes.Endpoint, listener string) (znodes.Endpoint, bool) {
	for _, e := range eps {
		if e.Listener == listener {
			return e, true
		}
	}
	return znodes.Endpoint{}, false
}

// leaderAndIsrResponseEvent is a LeaderAndIsr response from a broker.
type leaderAndIsrResponseEvent struct {
	gen    *leaderState
	broker int32
	resp   *kmsg.LeaderAndISRResponse
}

func (*leaderAndIsrResponseEvent) state() State { return StateLeaderAndIsrResponse }

// onLeaderAndIsrResponse is Kafka's LeaderAndIsrResponseReceived: replicas
// reported on a failed log directory (KAFKA_STORAGE_ERROR) go offline.
func (c *Controller) onLeaderAndIsrResponse(e *leaderAndIsrResponseEvent) error {
	ls := c.leader
	if ls == nil || e.gen != ls {
		return nil
	}
	cc := ls.cc
	if len(cc.offlineDirs[e.broker]) == 0 && brokerchan.AllNone(e.resp) {
		return nil // nothing was offline, and nothing is
	}
	r := brokerchan.ParseLeaderAndIsrResponse(e.broker, e.resp, func(id znodes.UUID) (string, bool) {
		name, ok := cc.topicByID[id]
		return name, ok
	})
	if r.Err != nil {
		c.log.Warn().Err(r.Err).Int32("broker", e.broker).Msg("LeaderAndIsr refused")
		return nil
	}
	current, newly := brokerchan.UpdateOfflineReplicas(cc.offlineDirs[e.broker], r)
	if len(current) == 0 {
		delete(cc.offlineDirs, e.broker)
	} else {
		cc.offlineDirs[e.broker] = current
	}
	if len(newly) == 0 {
		return nil
	}
	c.markDirty(newly...)
	replicas := make([]replicaKey, len(newly))
	for i, tp := range newly {
		replicas[i] = replicaKey{tp, e.broker}
	}
	c.log.Warn().Int32("broker", e.broker).Int("partitions", len(newly)).Msg("replicas on a failed log directory")
	return c.onReplicasBecomeOffline(ls, replicas)
}

// markDirty records that a topic's metadata changed, for the snapshot and
// the metrics computed after the event.
func (c *Controller) markDirty(tps ...TopicPartition) {
	c.viewDirty = true
	for _, tp := range tps {
		c.dirtyTopic[tp.Topic] = true
	}
}

// setLeadership caches a partition's new leadership.
func (c *Controller) setLeadership(ls *leaderState, tp TopicPartition, l election.LeaderAndIsr) {
	p := ls.cc.partition(tp)
	if p == nil {
		return
	}
	l = l.Clone()
	p.lead, p.stateErr = &l, nil
	c.markDirty(tp)
}
