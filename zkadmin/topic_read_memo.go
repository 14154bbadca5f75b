package zkadmin

import (
	"strings"
	"sync"
)

// topicReadMemo is what the create path's last cluster read resolved: the
// topics it found, each current as of that read, with their tally. The
// next read may carry them over without a look at each (readForCreate):
//
// Every topic in the memo was read with a data watch, or was a cache
// entry whose watch had not fired (see topicCache), so the session holds
// a data watch on each. A change to one fires that watch, and the client
// counts the firing (Client.nodeEvents) once it has fired the channels.
// The memo records the count taken right after the read's event barrier
// and before its lookup. A later read whose barrier finds the same count
// (and the same session-event count, since watches re-armed after a
// reconnect may lag) has had no firing delivered before its fence read;
// since ZooKeeper delivers the notification of every change a read can
// see before that read's reply, no topic in the memo changed before that
// fence read. A firing between the memo's count and its lookup is either
// seen by the lookup (its channel was fired first) or counted after the
// memo's count, so the next read does not carry.
//
// Any firing of the session, for any znode but a children change, moves
// the count, so the memo is only carried while nothing that is watched
// changes, which is the case during a run of creates; otherwise the read
// looks every topic up as before.
type topicReadMemo struct {
	// names are sorted; topics are aligned with them.
	names  []string
	topics []*Topic
	tally  *replicaTally
	// marked counts the topics marked for deletion.
	marked int

	sessionEvents, nodeEvents uint64
}

// readMemoSlot holds the Admin's last topicReadMemo; safe for concurrent
// use. Any memo is self-consistent, so whichever read stores last wins.
type readMemoSlot struct {
	mu   sync.Mutex
	last *topicReadMemo
}

func (s *readMemoSlot) get() *topicReadMemo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *readMemoSlot) set(m *topicReadMemo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = m
}

// carriedRead is a listing matched against a memo.
type carriedRead struct {
	base    *topicReadMemo // nil: nothing carried
	listing []string
	// topics holds, by listing position, the topics carried over; the
	// others are rest, to be resolved, at positions restAt.
	topics  []*Topic
	rest    []string
	restAt  []int
	removed []*Topic // topics of the memo no longer listed
}

// carry matches listing (sorted) against m, when the event counts prove
// m current.
func (m *topicReadMemo) carry(listing []string, sessionEvents, nodeEvents uint64) carriedRead {
	cr := carriedRead{listing: listing, topics: make([]*Topic, len(listing))}
	if m == nil || m.sessionEvents != sessionEvents || m.nodeEvents != nodeEvents {
		cr.rest = listing
		cr.restAt = make([]int, len(listing))
		for i := range listing {
			cr.restAt[i] = i
		}
		return cr
	}
	cr.base = m
	i, j := 0, 0
	for i < len(listing) || j < len(m.names) {
		d := 0
		switch {
		case i == len(listing):
			d = 1
		case j == len(m.names):
			d = -1
		default:
			d = strings.Compare(listing[i], m.names[j])
		}
		switch {
		case d == 0:
			cr.topics[i] = m.topics[j]
			i++
			j++
		case d < 0:
			cr.rest = append(cr.rest, listing[i])
			cr.restAt = append(cr.restAt, i)
			i++
		default:
			cr.removed = append(cr.removed, m.topics[j])
			j++
		}
	}
	return cr
}

// assemble sets c's Topics and tally from the carried topics and those
// resolved for rest (nil: deleted since the listing; watched: read or
// cached with a data watch), and returns the memo of this read, without
// its event counts.
func (cr carriedRead) assemble(c *Cluster, resolved []*Topic, watched []bool) *topicReadMemo {
	var added, unwatched []*Topic
	for k, i := range cr.restAt {
		t := resolved[k]
		if t == nil {
			continue
		}
		cr.topics[i] = t
		added = append(added, t)
		if !watched[k] {
			unwatched = append(unwatched, t)
		}
	}
	marked := cr.takeMarkers(c.MarkedForDeletion)
	c.Topics = make([]*Topic, 0, len(cr.listing))
	for _, t := range cr.topics {
		if t != nil {
			c.Topics = append(c.Topics, t)
		}
	}
	if cr.base != nil {
		c.tally = cr.base.tally.with(cr.removed, added)
	} else {
		c.tally = tallyOf(c.Topics)
	}
	memo := &topicReadMemo{names: cr.listing, topics: c.Topics, tally: c.tally, marked: marked}
	if len(c.Topics) == len(cr.listing) && len(unwatched) == 0 {
		return memo
	}
	memo.keepWatched(c, unwatched)
	return memo
}

// takeMarkers gives each carried topic the deletion marker of this read
// (markers are not part of the topic znode) and counts the marked ones.
// It is skipped when there is no marker to take or drop, so that a
// carried topic is not even looked at.
func (cr carriedRead) takeMarkers(markers map[string]bool) (marked int) {
	if cr.base != nil && cr.base.marked == 0 && len(markers) == 0 {
		return 0
	}
	for i, t := range cr.topics {
		if t == nil {
			continue
		}
		if m := markers[t.Name]; m != t.MarkedForDeletion {
			cp := *t
			cp.MarkedForDeletion = m
			cr.topics[i] = &cp
		}
		if cr.topics[i].MarkedForDeletion {
			marked++
		}
	}
	return marked
}

// keepWatched narrows the memo to c's topics found with a watch.
func (memo *topicReadMemo) keepWatched(c *Cluster, unwatched []*Topic) {
	memo.names, memo.topics, memo.marked = nil, nil, 0
	skip := make(map[*Topic]bool, len(unwatched))
	for _, t := range unwatched {
		skip[t] = true
	}
	for _, t := range c.Topics {
		if skip[t] {
			continue
		}
		memo.names = append(memo.names, t.Name)
		memo.topics = append(memo.topics, t)
		if t.MarkedForDeletion {
			memo.marked++
		}
	}
	memo.tally = c.tally.with(unwatched, nil)
}
