package zkadmin

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

// A round of CreateTopics reads the cluster, plans, and commits. On a
// server whose creates come back to back (AdminOptions.PrereadCreates),
// the read of the next round need not wait for this round's answer: the
// round sends it before it plans (so that ZooKeeper answers it before the
// round's multi, which the session orders after it), and the next round,
// when it comes soon enough, plans on that read plus what this round
// created, instead of reading again. A client that sends one small CreateTopics
// after another then pays one round trip per request (the multi) instead
// of two, and back-to-back rounds of many clients overlap each round's
// read with the previous multi.
//
// The pre-read is a read like any other, only earlier: it is a true state
// of the cluster as of when ZooKeeper answered it, and the round plans on
// it with what the previous round wrote added (which the read may
// predate). The fence holds as for any round: the multi expects the
// version of /brokers/topics the previous round left, which it left only
// if no other writer of ours moved it since the pre-read (that round's
// own multi expected the version before), and a change of the dynamic
// defaults fails the version check of the pre-read's defaults. What the
// fence does not cover (topics created by writers that do not bump it)
// is, as for every round, seen as of the read: a pre-read is only used
// within prereadMaxAge of being sent, so that window stays that short.
//
// A pre-read only ever lets a round accept topics: a round planned on one
// that would refuse a topic (a limit, a name taken, a deletion under way)
// is planned again on a fresh read, so that no refusal rests on a state
// older than the request. And a write of this Admin other than a create
// (a config change, a deletion mark) voids the pre-reads sent before it,
// so a client that saw such a write answered sees it in its next create.
//
// The config znodes of the new topics are not read: the round creates
// them, and should one exist (a deletion that left it), the multi fails
// on it like a lost race and the next attempt reads them, as always.

// prereadMaxAge is how long after it was sent a pre-read may stand in for
// a round's read.
const prereadMaxAge = 100 * time.Millisecond

// prereadTimeout bounds the pre-read itself.
const prereadTimeout = 10 * time.Second

// createPreread is a cluster read sent for the next round.
type createPreread struct {
	sent time.Time
	// writes is Admin.writes before it was sent: another write of this
	// Admin since (a config change, a deletion mark) may not be in it, and
	// a client that saw that write answered must see it.
	writes uint64
	done   chan struct{} // closed once c, parents and err are set
	c      *Cluster
	// parents are the ops creating the missing parents of /config/topics.
	parents []Op
	err     error

	// Set by the round that sent it, once its multis are answered (under
	// prereadSlot.mu): the topics it created, and the version of
	// /brokers/topics it left; nil when a multi of it failed.
	after *roundCreated
}

// roundCreated is what a round's multis created.
type roundCreated struct {
	topics  []*Topic
	version int32
}

// prereadSlot holds the pre-read the last round sent.
type prereadSlot struct {
	mu   sync.Mutex
	next *createPreread
	// maxAge is prereadMaxAge; tests that need a pre-read used whatever
	// the machine's pace raise it.
	maxAge time.Duration
}

// startPreread sends the next round's read.
func (a *Admin) startPreread() *createPreread {
	pr := &createPreread{sent: time.Now(), writes: a.writes.Load(), done: make(chan struct{})}
	a.preread.mu.Lock()
	a.preread.next = pr
	a.preread.mu.Unlock()
	go func() {
		defer close(pr.done)
		ctx, cancel := context.WithTimeout(context.Background(), prereadTimeout)
		defer cancel()
		var wg sync.WaitGroup
		var perr error
		wg.Go(func() { pr.parents, perr = a.watchedParentOps(ctx, znodes.ConfigEntityPath(znodes.EntityTopics, "x")) })
		pr.c, pr.err = a.readForCreateWith(ctx, true)
		wg.Wait()
		if pr.err == nil {
			pr.err = perr
		}
	}()
	return pr
}

// finishPreread records what the round that sent pr created (nil: a
// multi of it failed, and pr will not be used).
func (a *Admin) finishPreread(pr *createPreread, created *roundCreated) {
	if pr == nil {
		return
	}
	a.preread.mu.Lock()
	defer a.preread.mu.Unlock()
	pr.after = created
	if created == nil && a.preread.next == pr {
		a.preread.next = nil
	}
}

// takePreread returns the cluster a round may plan on instead of reading,
// with the ops creating the config parents, or ok false. It takes the
// pre-read, so that no two rounds plan on it.
func (a *Admin) takePreread(ctx context.Context) (c *Cluster, parents []Op, ok bool) {
	a.preread.mu.Lock()
	pr := a.preread.next
	a.preread.next = nil
	var after *roundCreated
	if pr != nil {
		after = pr.after
	}
	a.preread.mu.Unlock()
	if pr == nil || after == nil || time.Since(pr.sent) > a.preread.maxAge || a.writes.Load() != pr.writes {
		return nil, nil, false
	}
	select {
	case <-pr.done:
	case <-ctx.Done():
		return nil, nil, false
	}
	if pr.err != nil || !pr.c.TopicsExist {
		return nil, nil, false
	}
	return pr.c.withCreated(after), pr.parents, true
}

// withCreated adds to c, a pre-read nobody else holds, the topics a round
// created that the read predates, and sets the fence to the version that
// round left. TopicNames may be a kept listing's, which is never changed:
// it is copied.
func (c *Cluster) withCreated(r *roundCreated) *Cluster {
	c.TopicsVersion = r.version
	var added []*Topic
	for _, t := range r.topics {
		if c.Topic(t.Name) != nil {
			continue // the read saw it
		}
		added = append(added, t)
		c.topicsCversion++ // its create moved the children version
	}
	if len(added) == 0 {
		return c // the read saw them all: nothing to copy
	}
	byName := func(x, y *Topic) int { return strings.Compare(x.Name, y.Name) }
	slices.SortFunc(added, byName)
	names := make([]string, len(added))
	for i, t := range added {
		names[i] = t.Name
	}
	c.TopicNames = mergeSorted(c.TopicNames, names, strings.Compare)
	c.Topics = mergeSorted(c.Topics, added, byName)
	if c.tally != nil {
		c.tally = c.tally.with(nil, added)
	}
	return c
}

// plannedTopic is the Topic a round's multi created for p, as the next
// round counts it.
func plannedTopic(p *pendingTopic) *Topic {
	t := &Topic{Name: p.req.Topic, ConfigVersion: 0, Config: p.req.Config,
		Assignment: znodes.TopicAssignment{Partitions: make(map[int32][]int32, len(p.asg)), TopicID: p.id}}
	for part, replicas := range p.asg {
		t.Assignment.Partitions[int32(part)] = replicas
		t.Partitions = append(t.Partitions, Partition{ID: int32(part), Replicas: replicas})
	}
	t.countReplicas()
	return t
}
