package brokersim

// A leader's ISR management, reduced to something deterministic: a
// follower is caught up as soon as it can fetch (a running, unpaused broker
// of this cluster, or for ids outside the cluster a live broker in the
// metadata cache) unless it is marked lagging; a lagging follower leaves
// the ISR. The leader proposes the new ISR to the controller with
// AlterPartition, as a Kafka 3.9 broker does (controller reference §6.5):
// at most one pending change per partition and one request in flight per
// broker, the partition epoch from LeaderAndIsr as the expected version,
// unbounded retries. The committed ISR changes only when the controller
// accepts, and only if the answer's leader epoch is ours and its partition
// epoch not older.

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
	"github.com/kzadmin/kzadmin/znodes"
)

// alterItem is one proposed ISR change.
type alterItem struct {
	tp             TopicPartition
	topicID        znodes.UUID
	leaderEpoch    int32
	partitionEpoch int32
	isr            []int32
	// queued is true while the item waits in Broker.alterQueue (not in
	// flight).
	queued bool
}

// controllerLocked resolves the controller (see the package doc): its id,
// -1 if unknown, and the address to send to, "" if none.
func (b *Broker) controllerLocked() (int32, string) {
	id := b.zkControllerID
	if id < 0 {
		id = b.cache.controllerID
	}
	if id >= 0 {
		if lb, ok := b.cache.liveBroker(id); ok {
			if ep, ok := lb.Endpoint(ListenerName); ok {
				return id, net.JoinHostPort(ep.Host, strconv.Itoa(int(ep.Port)))
			}
		}
	}
	return id, b.set.ControllerAddr
}

// caughtUpLocked reports whether a follower would be in sync.
func (b *Broker) caughtUpLocked(id int32) bool {
	_, live := b.cache.liveBroker(id)
	if state, sibling := b.cluster.followerState(id); sibling {
		// A restarted follower fetches only once the controller has told
		// it its replicas, which it does after registering it: until the
		// leader's metadata lists it, it cannot have caught up. (Proposing
		// it earlier only earns INELIGIBLE_REPLICA.)
		return state == fetchOK && live
	}
	return live
}

// targetISR keeps the current ISR minus lagging followers of this cluster,
// then appends caught-up replicas in replica order, as Kafka appends a
// follower when it catches up.
func (b *Broker) targetISR(r *replica) []int32 {
	out := make([]int32, 0, len(r.Replicas))
	for _, id := range r.ISR {
		if state, sibling := b.cluster.followerState(id); id == b.id || !sibling || state != fetchLagging {
			out = append(out, id)
		}
	}
	for _, id := range r.Replicas {
		if id != b.id && !slices.Contains(out, id) && b.caughtUpLocked(id) {
			out = append(out, id)
		}
	}
	return out
}

func sameMembers(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// reconcileISRLocked queues an AlterPartition when a led partition's ISR
// should change and none is pending.
func (b *Broker) reconcileISRLocked(tp TopicPartition, r *replica) {
	if r.Role != Leader || r.pending != nil || r.hold != holdNone || b.inc == nil {
		return
	}
	target := b.targetISR(r)
	if sameMembers(target, r.ISR) {
		return
	}
	r.pending = &alterItem{tp: tp, topicID: r.TopicID, leaderEpoch: r.LeaderEpoch,
		partitionEpoch: r.PartitionEpoch, isr: target, queued: true}
	b.alterQueue = append(b.alterQueue, tp)
	notify(b.inc.alterSignal)
}

// reconcileAllLocked re-checks every led partition; event releases the
// holds that wait for a liveness or metadata change.
func (b *Broker) reconcileAllLocked(event bool) {
	for tp, r := range b.replicas.all() {
		if r.Role != Leader {
			continue
		}
		if event && r.hold == holdUntilEvent {
			r.hold = holdNone
		}
		b.reconcileISRLocked(tp, r)
	}
}

func (b *Broker) reconcileAll(event bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reconcileAllLocked(event)
}

// takeAlterBatchLocked takes the queued items, sorted, still current.
func (b *Broker) takeAlterBatchLocked() []*alterItem {
	var batch []*alterItem
	for _, tp := range b.alterQueue {
		if r := b.replicas.at(tp); r != nil && r.pending != nil && r.pending.queued {
			r.pending.queued = false
			batch = append(batch, r.pending)
		}
	}
	b.alterQueue = b.alterQueue[:0]
	slices.SortFunc(batch, func(x, y *alterItem) int { return compareTP(x.tp, y.tp) })
	return batch
}

// requeueLocked puts items that must be re-sent back in the queue.
func (b *Broker) requeueLocked(items []*alterItem) {
	for _, it := range items {
		if r := b.replicas.at(it.tp); r != nil && r.pending == it && !it.queued {
			it.queued = true
			b.alterQueue = append(b.alterQueue, it.tp)
		}
	}
}

// buildAlterPartition groups the batch by topic at the negotiated version:
// v3 sends NewIsrWithEpochs with epoch -1 (a ZooKeeper-mode broker knows
// no other broker's epoch), earlier versions NewIsr; LeaderRecoveryState
// is RECOVERED, as ISR changes propose, from IBP 3.2.
func (b *Broker) buildAlterPartition(batch []*alterItem, version int16, epoch int64) *kmsg.AlterPartitionRequest {
	req := kmsg.NewPtrAlterPartitionRequest()
	req.Version, req.BrokerID, req.BrokerEpoch = version, b.id, epoch
	index := make(map[string]int)
	for _, it := range batch {
		i, ok := index[it.tp.Topic]
		if !ok {
			t := kmsg.NewAlterPartitionRequestTopic()
			t.Topic, t.TopicID = it.tp.Topic, it.topicID
			req.Topics = append(req.Topics, t)
			i = len(req.Topics) - 1
			index[it.tp.Topic] = i
		}
		p := kmsg.NewAlterPartitionRequestTopicPartition()
		p.Partition, p.LeaderEpoch, p.PartitionEpoch = it.tp.Partition, it.leaderEpoch, it.partitionEpoch
		if version >= 3 {
			for _, id := range it.isr {
				e := kmsg.NewAlterPartitionRequestTopicPartitionNewEpochISR()
				e.BrokerID, e.BrokerEpoch = id, -1
				p.NewEpochISR = append(p.NewEpochISR, e)
			}
		} else {
			p.NewISR = it.isr
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	return req
}

// alterVersion picks the AlterPartition version: the highest both sides
// support, but at most v1 (names, not ids) unless the IBP allows topic ids
// and every topic in the batch has one.
func (b *Broker) alterVersion(cc *kafkaconn.Conn, batch []*alterItem) (int16, error) {
	hi := int16(3)
	if !b.set.topicIDsSupported() || slices.ContainsFunc(batch, func(it *alterItem) bool { return it.topicID.IsZero() }) {
		hi = 1
	}
	return cc.PickVersion(kmsg.AlterPartition.Int16(), 0, hi)
}

// applyAlterResponseLocked applies the controller's answer. It returns the
// items to send again and whether to reconnect (NOT_CONTROLLER anywhere).
func (b *Broker) applyAlterResponseLocked(batch []*alterItem, resp *kmsg.AlterPartitionResponse) (retry []*alterItem, reconnect bool) {
	if resp.ErrorCode != 0 {
		return batch, resp.ErrorCode == kerr.NotController.Code
	}
	names := make(map[znodes.UUID]string)
	for _, it := range batch {
		names[it.topicID] = it.tp.Topic
	}
	results := make(map[TopicPartition]kmsg.AlterPartitionResponseTopicPartition)
	for _, t := range resp.Topics {
		name := t.Topic
		if resp.Version >= 2 {
			name = names[znodes.UUID(t.TopidID)]
		}
		for _, p := range t.Partitions {
			results[TopicPartition{name, p.Partition}] = p
		}
	}
	for _, it := range batch {
		r := b.replicas.at(it.tp)
		if r == nil || r.pending != it {
			continue // the leadership changed meanwhile
		}
		res, ok := results[it.tp]
		switch {
		case !ok || res.ErrorCode == kerr.NotController.Code:
			retry = append(retry, it)
			reconnect = reconnect || ok
		case res.ErrorCode == 0:
			r.pending = nil
			if res.LeaderEpoch == r.LeaderEpoch && res.PartitionEpoch >= r.PartitionEpoch {
				r.ISR, r.PartitionEpoch, r.LeaderRecoveryState = res.ISR, res.PartitionEpoch, res.LeaderRecoveryState
			}
			b.reconcileISRLocked(it.tp, r)
		case res.ErrorCode == kerr.IneligibleReplica.Code || res.ErrorCode == kerr.OperationNotAttempted.Code:
			r.pending, r.hold = nil, holdUntilEvent
		default:
			r.pending, r.hold = nil, holdUntilLeaderAndIsr
		}
	}
	return retry, reconnect
}

// alterLoop is the broker's AlterPartition sender: one request in flight,
// everything queued since goes in the next one.
func (b *Broker) alterLoop(inc *incarnation) {
	var cc *kafkaconn.Conn
	defer func() {
		if cc != nil {
			_ = cc.Close()
		}
	}()
	for {
		b.mu.Lock()
		batch := b.takeAlterBatchLocked()
		b.mu.Unlock()
		if len(batch) == 0 {
			select {
			case <-inc.alterSignal:
				continue
			case <-inc.ctx.Done():
				return
			}
		}
		if !b.sendAlter(inc, &cc, batch) {
			return
		}
	}
}

// sendAlter sends one batch and applies the answer; items to retry are
// queued again after a backoff. It returns false once the incarnation ends.
func (b *Broker) sendAlter(inc *incarnation, cc **kafkaconn.Conn, batch []*alterItem) bool {
	ctx := inc.ctx
	if b.waitResumed(ctx) != nil {
		return false
	}
	resp, err := b.roundTripController(ctx, cc, batch)
	b.mu.Lock()
	retry, reconnect := batch, true
	if err == nil {
		retry, reconnect = b.applyAlterResponseLocked(batch, resp)
		b.bumpLocked()
	}
	b.requeueLocked(retry)
	b.mu.Unlock()
	if err != nil {
		b.log.Debug().Err(err).Int("partitions", len(batch)).Msg("AlterPartition failed; will retry")
	}
	if reconnect && *cc != nil {
		_ = (*cc).Close()
		*cc = nil
	}
	if len(retry) == 0 {
		return true
	}
	if !b.retryWait(inc, errors.Is(err, errNoController)) {
		return false
	}
	notify(inc.alterSignal)
	return true
}

// retryWait pauses before a retry: until the controller may have moved
// when none is known, else for the retry backoff or until it moves. It
// returns false once the incarnation ends.
func (b *Broker) retryWait(inc *incarnation, noController bool) bool {
	var timeout <-chan time.Time
	if !noController {
		t := time.NewTimer(b.set.RetryBackoff)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
	case <-inc.ctrlSignal:
	case <-inc.ctx.Done():
		return false
	}
	return true
}

// roundTripController sends the batch to the current controller over the
// kept connection, (re)connecting and negotiating versions as needed.
func (b *Broker) roundTripController(ctx context.Context, cc **kafkaconn.Conn, batch []*alterItem) (*kmsg.AlterPartitionResponse, error) {
	b.mu.Lock()
	_, addr := b.controllerLocked()
	epoch := b.epoch
	b.mu.Unlock()
	if addr == "" {
		return nil, errNoController
	}
	if *cc != nil && (*cc).Addr() != addr {
		_ = (*cc).Close()
		*cc = nil
	}
	if *cc == nil {
		c, err := b.dialController(ctx, addr, true)
		if err != nil {
			return nil, err
		}
		*cc = c
	}
	version, err := b.alterVersion(*cc, batch)
	if err != nil {
		return nil, err
	}
	req := b.buildAlterPartition(batch, version, epoch)
	b.countSent(req.Key())
	resp, err := (*cc).RoundTrip(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.AlterPartitionResponse), nil
}
