package controller

import (
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Listing /brokers/topics re-arms its child watch, and the listing grows
// with the cluster (Kafka's controller lists it on the loop at every
// change). Every topic the controller creates itself (create_topics.go)
// fires that watch; on the loop, the listing and the new topics' watch
// reads took longer than the create and held back the next one. So a
// firing lists the children off the loop, and the loop applies the
// listing when it arrives (topicListEvent), and the new topics' data
// watches are armed the same way (createdWatchEvent); while the firings
// come from our own creates, these reads go out at most once per
// topicRefreshInterval (topicRefresh).
//
// A listing taken off the loop may predate a create multi the loop
// applied while it was in flight, so it may lack topics that exist:
// createdTopics numbers the multis, and a topic is dropped for missing
// from a listing only when its multi was applied before the listing was
// sent (the controller's session orders its requests, so that listing
// saw the multi). Topics a listing shows that the context lacks are read
// on the loop, as before, so a listing that predates a deletion adds
// nothing back.

// createdTopics numbers the create multis the loop applied, and remembers
// each new topic's number until a listing sent after it arrives.
type createdTopics struct {
	seq    uint64            // multis applied so far
	recent map[string]uint64 // topic -> number of the multi that made it
}

// add records a multi that created names; its number is the new seq.
func (t *createdTopics) add(names []string) {
	t.seq++
	if t.recent == nil {
		t.recent = map[string]uint64{}
	}
	for _, n := range names {
		t.recent[n] = t.seq
	}
}

// listed forgets the topics a listing sent after multi listedSeq shows
// for certain, present or gone.
func (t *createdTopics) listed(listedSeq uint64) {
	for n, s := range t.recent {
		if s <= listedSeq {
			delete(t.recent, n)
		}
	}
}

// newerThanListing reports whether name was created by a multi the last
// listing applied may predate (call after listed).
func (t *createdTopics) newerThanListing(name string) bool {
	_, ok := t.recent[name]
	return ok
}

// topicRefreshInterval is how often, at most, the controller re-lists
// /brokers/topics and arms new topics' data watches while the firings come
// from topics it creates itself: a client creating a few topics at a time
// makes one firing per request, and each listing is as long as the
// cluster. A firing with no create of ours since the last listing (another
// writer's topic) is listed at once, so another writer's topic waits at
// most this long, and only while we create topics ourselves.
const topicRefreshInterval = 100 * time.Millisecond

// topicRefresh is the reads the controller owes after its own creates
// (see refreshTopics).
type topicRefresh struct {
	listDue   bool                   // the child watch fired and no listing is sent yet
	unwatched []zkadmin.PlannedTopic // created topics whose data watch is not armed yet
	last      time.Time              // when the last reads were sent
	listedSeq uint64                 // createdTopics.seq when the last listing was sent
	scheduled bool                   // a topicRefreshEvent is on its way
}

// topicRefreshEvent sends the reads refreshTopics put off.
type topicRefreshEvent struct{ gen *leaderState }

func (*topicRefreshEvent) state() State { return StateTopicChange }

// refreshTopics sends the reads owed (the listing after a firing, the new
// topics' watch reads), or, when they follow our own creates and the last
// ones went out less than topicRefreshInterval ago, schedules them.
func (c *Controller) refreshTopics(ls *leaderState) {
	r := &ls.refresh
	if r.listDue && ls.watches.armed[watchKey{znodes.TopicsPath, watchChildren}] {
		r.listDue = false // a listing on the loop re-armed it meanwhile
	}
	if !r.listDue && len(r.unwatched) == 0 {
		return
	}
	foreign := r.listDue && ls.creates.seq == r.listedSeq
	if wait := topicRefreshInterval - time.Since(r.last); wait > 0 && !foreign {
		if !r.scheduled {
			r.scheduled = true
			time.AfterFunc(wait, func() { c.queue.push(&topicRefreshEvent{gen: ls}) })
		}
		return
	}
	r.last = time.Now()
	if r.listDue {
		r.listDue, r.listedSeq = false, ls.creates.seq
		c.listTopicsAsync(ls)
	}
	if len(r.unwatched) > 0 {
		c.watchCreatedAsync(ls, r.unwatched)
		r.unwatched = nil
	}
}

func (c *Controller) onTopicRefresh(e *topicRefreshEvent) {
	if e.gen != c.leader {
		return
	}
	e.gen.refresh.scheduled = false
	c.refreshTopics(e.gen)
}

// topicListEvent is a listing of /brokers/topics taken off the loop after
// its child watch fired.
type topicListEvent struct {
	gen       *leaderState
	listedSeq uint64 // createdTopics.seq when the listing was sent
	names     []string
	watch     <-chan zkadmin.Event
	err       error
}

func (*topicListEvent) state() State { return StateTopicChange }

// listTopicsAsync lists /brokers/topics off the loop, re-arming its child
// watch, and queues the listing. The watch counts as armed meanwhile, so
// no read on the loop arms a second one.
func (c *Controller) listTopicsAsync(ls *leaderState) {
	key := watchKey{znodes.TopicsPath, watchChildren}
	ls.watches.armed[key] = true
	ev := &topicListEvent{gen: ls, listedSeq: ls.creates.seq}
	ls.wg.Go(func() {
		ev.names, _, ev.watch, ev.err = c.zk.ChildrenW(ls.ctx, znodes.TopicsPath)
		c.queue.push(ev)
	})
}

// onTopicList applies a listing taken off the loop. When the listing
// failed, the children are listed on the loop instead, as a firing used to
// be handled, whose failure the watch retry covers.
func (c *Controller) onTopicList(e *topicListEvent) error {
	ls := e.gen
	if ls != c.leader {
		return nil // a new leadership read everything afresh
	}
	key := watchKey{znodes.TopicsPath, watchChildren}
	if e.err != nil || e.watch == nil {
		ls.watches.fired(key)
		err := c.afterTopicChange(ls, c.onTopicChange(ls))
		if err != nil {
			c.retryWatch(&watchEvent{key: key, gen: ls, retry: true}, err)
		}
		return err
	}
	ls.watches.forward(key, e.watch)
	return c.afterTopicChange(ls, c.applyTopicList(ls, e.names, e.listedSeq))
}
