package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/znodes"
)

// CreateTopicOutcome is one topic's answer from CreateTopics: Result when
// it was created (or, DryRun, validated and planned), else Err.
type CreateTopicOutcome struct {
	Result *CreateTopicResult
	Err    error
}

// pendingTopic is a topic of a batch not yet decided. Its id stays the same
// across re-plans, so a lost reply can be confirmed by it.
type pendingTopic struct {
	idx int
	req CreateTopicRequest
	id  znodes.UUID
	// Set by the plan of the current round.
	asg       [][]int32
	ops       []Op   // the config put and the assignment create
	written   []byte // the assignment znode's data in ops
	cfgParent bool   // ops create the config znode, which needs /config/topics
	// refusedAnyRead: the plan refused the topic for a reason no state of
	// the cluster would lift (its name, its configs, its quota), so a
	// refusal on a pre-read stands.
	refusedAnyRead bool
	// admitted: req.Admit took the topic's partitions, which a later
	// round (after a lost race) must not take again.
	admitted bool
}

// CreateTopics creates many topics as CreateTopic creates one, but with one
// cluster read per round instead of one per topic (topic znodes known
// unchanged come from the Admin's cache, see topicCache), and the writes
// packed into few multis. Every topic is validated and planned against the counts
// of the read plus the topics planned before it in the batch, so the batch
// as a whole respects max.partitions and max.broker.partitions; a topic that
// would exceed them (or is otherwise refused) gets its error and the rest go
// on: the batch is not transactional.
//
// The multis are applied in order, each a run of whole topics (config and
// assignment) behind the partition-limit fence: the first expects the
// version of /brokers/topics that was read before the counts, each later
// one the version the previous one left. When a multi loses a race (the
// fence moved under a concurrent writer, or a znode it creates appeared),
// nothing of it was applied: the topics not yet written are re-read and
// re-planned, up to MaxAttempts rounds, so that each gets the answer a
// lone CreateTopic would (TopicExists, the limit error, ...).
//
// The outcomes are in the order of reqs. The error is nil unless talking
// to ZooKeeper failed; the topics it concerns carry it in their outcome.
func (a *Admin) CreateTopics(ctx context.Context, reqs []CreateTopicRequest) ([]CreateTopicOutcome, error) {
	out := make([]CreateTopicOutcome, len(reqs))
	var pending []*pendingTopic
	for i, req := range reqs {
		if err := checkCreateRequest(req); err != nil {
			out[i].Err = err
			continue
		}
		id, err := znodes.NewTopicID(a.opts.TopicIDs)
		if err != nil {
			out[i].Err = fmt.Errorf("create topic %s: %w", req.Topic, err)
			continue
		}
		pending = append(pending, &pendingTopic{idx: i, req: req, id: id})
	}
	var last error
	for attempt := 1; len(pending) > 0; attempt++ {
		if attempt > a.opts.MaxAttempts {
			for _, p := range pending {
				e := adminErr(KindConflict, p.req.Topic, "create topic %s: gave up after %d attempts; the znodes kept "+
					"changing under concurrent writers (last: %v)", p.req.Topic, a.opts.MaxAttempts, last)
				e.Err = last
				out[p.idx].Err = e
			}
			return out, nil
		}
		if attempt > 1 {
			if err := backoff(ctx, attempt-1); err != nil {
				return out, failAll(out, pending, err)
			}
		}
		var err error
		pending, last, err = a.createRound(ctx, pending, out, attempt)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// createRound reads the cluster once, plans pending and commits the plan.
// It returns the topics to re-plan after a lost race (with the conflict),
// or a failure to talk to ZooKeeper.
func (a *Admin) createRound(ctx context.Context, pending []*pendingTopic, out []CreateTopicOutcome,
	attempt int) (rest []*pendingTopic, conflict, err error) {
	timing := CreateRoundTiming{Topics: len(pending)}
	began := time.Now()
	if a.opts.OnCreateRound != nil {
		defer func() { a.opts.OnCreateRound(timing) }()
	}
	c, pre, ok, err := a.readRound(ctx, pending, attempt)
	if err != nil {
		return nil, nil, failAll(out, pending, err)
	}
	timing.Preread = ok
	timing.Read = time.Since(began)
	began = time.Now()
	var pr *createPreread
	if a.opts.PrereadCreates && c.TopicsExist && !anyDryRun(pending) {
		// Sent before the plan, so that ZooKeeper answers it before this
		// round's multi, and it is ready when the next round comes.
		pr = a.startPreread()
	}
	plan, err := a.planCreates(ctx, c, pending, out, attempt, pre)
	timing.Plan = time.Since(began)
	if err != nil {
		a.finishPreread(pr, nil)
		return nil, nil, failAll(out, pending, err)
	}
	if ok && refusedAny(pending, out) {
		// A refusal must come from a read taken after the request came:
		// the pre-read may predate the change that makes the topic
		// acceptable (a raised limit, a finished deletion). The whole
		// batch is planned again, so that its order still decides.
		a.finishPreread(pr, nil)
		for _, p := range pending {
			out[p.idx] = CreateTopicOutcome{}
		}
		return pending, errPrereadRefused, nil
	}
	if len(plan.topics) > 0 {
		began = time.Now()
		defer func() { timing.Commit = time.Since(began) }()
	}
	return a.commitCreates(ctx, c, plan, out, attempt, pr)
}

// readRound is a round's read: the pre-read the last round left, when a
// first attempt may take it (preread), else a fresh read of the cluster.
//
// The config znodes and the parents of /config/topics/<t> do not count
// for the limits, so they are read alongside the cluster rather than
// after it: should one change before the multi, its create (or its
// version-checked set) fails the multi like any lost race.
func (a *Admin) readRound(ctx context.Context, pending []*pendingTopic, attempt int) (c *Cluster, pre createPrefetch,
	preread bool, err error) {
	if attempt == 1 && !anyDryRun(pending) {
		var parents []Op
		if c, parents, preread = a.takePreread(ctx); preread {
			return c, assumeNoConfigs(pending, parents), true, nil
		}
	}
	// A first attempt assumes, as a pre-read round does, that the new
	// topics have no config znode: Kafka deletes it with the topic and
	// its tools write none for a topic that does not exist, so one is
	// left only by a deletion cut short. Such a znode fails the multi,
	// and the next attempt reads it and overwrites it. Reading them
	// all first cost a request per topic, the longest part of reading
	// for a large request. With a single attempt allowed they are read.
	readConfigs := attempt > 1 || anyDryRun(pending) || a.opts.MaxAttempts < 2
	var wg sync.WaitGroup
	wg.Go(func() { pre = a.prefetchCreates(ctx, pending, readConfigs) })
	c, err = a.readForCreate(ctx)
	wg.Wait()
	if err == nil {
		err = pre.err
	}
	return c, pre, false, err
}

// errPrereadRefused is the "conflict" of a round planned on a pre-read
// that refused a topic: the round is planned again on a fresh read.
var errPrereadRefused = errors.New("a round planned on a pre-read refused a topic; planning again on a fresh read")

// refusedAny reports whether the plan refused a pending topic for a
// reason a fresher read might lift.
func refusedAny(pending []*pendingTopic, out []CreateTopicOutcome) bool {
	for _, p := range pending {
		if out[p.idx].Err != nil && !p.refusedAnyRead {
			return true
		}
	}
	return false
}

// createPrefetch is what a round reads besides the cluster: each pending
// topic's config znode (or, on a first attempt, the assumption that there
// is none), and the ops creating the missing parents of /config/topics/<t>.
type createPrefetch struct {
	configs map[string]GetResult
	parents []Op
	err     error
}

// prefetchCreates reads the parents of the config znodes and, with
// readConfigs, each pending topic's config znode.
func (a *Admin) prefetchCreates(ctx context.Context, pending []*pendingTopic, readConfigs bool) createPrefetch {
	if !readConfigs {
		parents, err := a.watchedParentOps(ctx, znodes.ConfigEntityPath(znodes.EntityTopics, "x"))
		pre := assumeNoConfigs(pending, parents)
		pre.err = err
		return pre
	}
	var pre createPrefetch
	paths := make([]string, len(pending))
	for i, p := range pending {
		paths[i] = znodes.ConfigEntityPath(znodes.EntityTopics, p.req.Topic)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		pre.parents, pre.err = a.watchedParentOps(ctx, znodes.ConfigEntityPath(znodes.EntityTopics, "x"))
	})
	res := a.zk.GetMany(ctx, paths, a.opts.MaxInFlight)
	wg.Wait()
	pre.configs = make(map[string]GetResult, len(pending))
	for i, p := range pending {
		pre.configs[p.req.Topic] = res[i]
	}
	return pre
}

// assumeNoConfigs is the prefetch of a round planned on a pre-read: no
// config znode exists for the new topics (one that does fails the multi,
// and the next attempt reads them).
func assumeNoConfigs(pending []*pendingTopic, parents []Op) createPrefetch {
	pre := createPrefetch{configs: make(map[string]GetResult, len(pending)), parents: parents}
	for _, p := range pending {
		pre.configs[p.req.Topic] = GetResult{Err: ErrNoNode}
	}
	return pre
}

// anyDryRun reports whether a validateOnly topic is among pending.
func anyDryRun(pending []*pendingTopic) bool {
	for _, p := range pending {
		if p.req.DryRun {
			return true
		}
	}
	return false
}

// failAll gives every pending topic the error of a failed ZooKeeper call.
func failAll(out []CreateTopicOutcome, pending []*pendingTopic, err error) error {
	for _, p := range pending {
		out[p.idx].Err = fmt.Errorf("create topic %s: %w", p.req.Topic, err)
	}
	return fmt.Errorf("create topics: %w", err)
}

// createPlan is one round's plan: the fence of its first multi, the
// missing parents of the config znodes, and the topics to write in order.
type createPlan struct {
	fence   []Op
	parents []Op
	topics  []*pendingTopic
}

// planCreates validates and places each pending topic against the running
// counts, records refusals and dry runs in out, and returns the topics to
// write with their ops.
func (a *Admin) planCreates(ctx context.Context, c *Cluster, pending []*pendingTopic, out []CreateTopicOutcome,
	attempt int, pre createPrefetch) (createPlan, error) {
	limits := c.Limits()
	planned := make(map[string]bool, len(pending))
	var plannedNames []string
	var ok []*pendingTopic
	for _, p := range pending {
		name := p.req.Topic
		var err error
		p.asg, p.refusedAnyRead, err = a.planNewTopic(c, p.req, limits, plannedNames, planned)
		if err == nil && p.req.Admit != nil && !p.req.DryRun && !p.admitted {
			// Kafka takes the quota after every check, just before the write.
			if err = p.req.Admit(len(p.asg)); err != nil {
				p.refusedAnyRead = true
			}
			p.admitted = err == nil
		}
		if err != nil {
			out[p.idx] = CreateTopicOutcome{Err: err}
			continue
		}
		// Dry runs count too, so that a validateOnly batch predicts what
		// the real one would do.
		addPlanned(&limits, p.asg)
		planned[name] = true
		plannedNames = append(plannedNames, name)
		ok = append(ok, p)
	}
	plan := createPlan{}
	if len(ok) == 0 {
		return plan, nil
	}
	if err := topicOps(ok, pre.configs); err != nil {
		return plan, err
	}
	var err error
	if plan.fence, err = a.fenceOps(ctx, c); err != nil {
		return plan, err
	}
	plan.parents = pre.parents
	for _, p := range ok {
		if !p.req.DryRun {
			plan.topics = append(plan.topics, p)
			continue
		}
		ops := slices.Clone(plan.fence)
		if p.cfgParent {
			ops = append(ops, plan.parents...)
		}
		out[p.idx] = CreateTopicOutcome{Result: &CreateTopicResult{TopicID: p.id, Assignment: p.asg,
			Ops: dedupeCreates(append(ops, p.ops...)), Attempts: attempt, BrokerDefaults: readDefaults(c)}}
	}
	return plan, nil
}

// readDefaults is c's dynamic broker defaults for a CreateTopicResult:
// never nil, since they were read.
func readDefaults(c *Cluster) map[string]string {
	if c.BrokerDefaults == nil || c.BrokerDefaultsErr != nil {
		return map[string]string{}
	}
	return c.BrokerDefaults
}

// addPlanned adds a planned topic's partitions and replicas to the counts
// the next topic of the batch is checked against.
func addPlanned(l *placement.Limits, asg [][]int32) {
	l.Partitions += len(asg)
	if l.BrokerReplicas == nil {
		l.BrokerReplicas = map[int32]int{}
	}
	for _, replicas := range asg {
		for _, b := range replicas {
			l.BrokerReplicas[b]++
		}
	}
}

// topicOps builds each topic's own ops: the config znode (created, or
// overwritten at its version if a stale one is left, as Kafka does) and the
// version 3 assignment with the new id. configs are the config znodes as
// prefetched.
func topicOps(topics []*pendingTopic, configs map[string]GetResult) error {
	for _, p := range topics {
		path := znodes.ConfigEntityPath(znodes.EntityTopics, p.req.Topic)
		cfgData, err := znodes.EntityConfig{Config: p.req.Config}.Encode()
		if err != nil {
			return fmt.Errorf("create topic %s: %w", p.req.Topic, err)
		}
		var cfgOp Op
		switch r := configs[p.req.Topic]; {
		case r.Err == nil:
			cfgOp, p.cfgParent = SetOp(path, cfgData, r.Stat.Version), false
		case errors.Is(r.Err, ErrNoNode):
			cfgOp, p.cfgParent = CreateOp(path, cfgData, Persistent), true
		default:
			return fmt.Errorf("create topic %s: %w", p.req.Topic, r.Err)
		}
		topic := znodes.TopicAssignment{Partitions: make(map[int32][]int32, len(p.asg)), TopicID: p.id}
		for part, replicas := range p.asg {
			topic.Partitions[int32(part)] = replicas
		}
		asgData, err := topic.Encode()
		if err != nil {
			return fmt.Errorf("create topic %s: %w", p.req.Topic, err)
		}
		p.ops, p.written = []Op{cfgOp, CreateOp(znodes.TopicPath(p.req.Topic), asgData, Persistent)}, asgData
	}
	return nil
}

// commitCreates applies the plan's topics in multis, in order and
// pipelined (createChain). After a lost race it returns the topics not yet
// written (nothing of the failed multi, nor of any after it, was applied)
// with the conflict; after any other failure they all carry the error,
// which is returned.
func (a *Admin) commitCreates(ctx context.Context, c *Cluster, plan createPlan, out []CreateTopicOutcome,
	attempt int, pr *createPreread) (rest []*pendingTopic, conflict, err error) {
	chunks := a.chunkCreates(plan)
	chain, err := a.createChain(ctx, c, plan, chunks)
	if err != nil {
		a.finishPreread(pr, nil)
		return nil, nil, failAll(out, plan.topics, err)
	}
	outcomes := a.sendCreateMultis(ctx, chain.ops, chunks)
	landed := newLandedRound(c)
	defer func() { a.warmTopics(landed.warm) }()
	for i, chunk := range chunks {
		ops, res, err := chain.ops[i], outcomes[i].Res, outcomes[i].Err
		if err != nil && errors.Is(err, ErrConnectionLoss) && a.confirmCreated(ctx, chunk[0].req.Topic, chunk[0].id) {
			err, res = nil, nil // the multi landed: it is all or nothing
		}
		if err == nil {
			landed.add(c, i == 0, chunk, ops, res, out, attempt, pr != nil)
			continue
		}
		a.finishPreread(pr, nil)
		a.listing.set(nil)
		a.dropChainMarker(ctx, chain.marker)
		// A multi not attempted follows one that failed, or that the
		// Committer wrote again in another way (CreateCommitter): it is
		// planned again like the loser of a race.
		if isConflict(err) || errors.Is(err, ErrNotAttempted) {
			a.markerParentKnown.Store(false)
			a.opts.Logger.Debug().Err(err).Int("attempt", attempt).Int("topics", len(chunk)).
				Msg("create topics lost a race; re-reading")
			return slices.Concat(chunks[i:]...), err, nil
		}
		return nil, nil, failAll(out, slices.Concat(chunks[i:]...), err)
	}
	if len(chunks) > 1 {
		a.markerParentKnown.Store(true)
	}
	a.keepRoundListing(c, landed, pr)
	return nil, nil, nil
}

// landedRound tallies the multis of a round that landed, in order.
type landedRound struct {
	version int32 // the version of /brokers/topics they left
	// exact: every multi's fence saw the children version this round's
	// listing, and the multis before it, leave (see topic_listing.go).
	exact    bool
	cversion int32
	created  []string
	topics   []*Topic       // what they created, for the next round's pre-read
	warm     []writtenTopic // what they created, for the topic cache
}

func newLandedRound(c *Cluster) *landedRound {
	return &landedRound{version: c.TopicsVersion, exact: c.TopicsExist, cversion: c.topicsCversion}
}

// add records a multi that landed, first of the round or not, holding
// chunk's topics, and gives each its outcome; prereading keeps the topics
// for the next round's pre-read.
func (l *landedRound) add(c *Cluster, first bool, chunk []*pendingTopic, ops []Op, res []OpResult,
	out []CreateTopicOutcome, attempt int, prereading bool) {
	l.exact = l.exact && fenceSaw(ops, res, l.cversion)
	l.cversion += int32(len(chunk))
	for _, p := range chunk {
		out[p.idx] = CreateTopicOutcome{Result: &CreateTopicResult{TopicID: p.id, Assignment: p.asg,
			Ops: ops, Attempts: attempt, BrokerDefaults: readDefaults(c)}}
		l.created = append(l.created, p.req.Topic)
		l.warm = append(l.warm, writtenTopic{name: p.req.Topic, id: p.id, asg: p.asg, data: p.written})
		if prereading {
			l.topics = append(l.topics, plannedTopic(p))
		}
	}
	if first && !c.TopicsExist {
		l.version = 0 // the first multi created /brokers/topics
	} else {
		l.version++
	}
}

// keepRoundListing keeps, after a round whose multis all landed, the
// listing of /brokers/topics with its topics added, and hands the next
// round's pre-read what they created; unless another writer created or
// deleted a topic since this round's listing, in which case the next
// round lists again, on a fresh read.
func (a *Admin) keepRoundListing(c *Cluster, landed *landedRound, pr *createPreread) {
	if c.TopicsExist && len(landed.created) > 0 && !landed.exact {
		a.listing.set(nil)
		a.finishPreread(pr, nil)
		return
	}
	if c.TopicsExist && len(landed.created) > 0 {
		a.listing.set(c.listingAfter(landed.created, landed.version, landed.exact))
	}
	a.finishPreread(pr, &roundCreated{topics: landed.topics, version: landed.version})
}
