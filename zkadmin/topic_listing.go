package zkadmin

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kzadmin/kzadmin/znodes"
)

// Listing /brokers/topics is the one read of the create path that grows
// with the cluster, and the controller lists it too after every create (its
// child watch fires), so at a few thousand topics the two listings were
// the larger part of a small create. But a listing stays exact for as long
// as the children version (Cversion) of /brokers/topics does not move:
// every child created or deleted, by any writer, bumps it by one. So the
// create path keeps the last listing it read, and after each of its own
// multis the listing those multis leave (the names added, the version
// moved by their count). The next round reads the znode's stat instead of
// its children and uses the kept names when the children version is the
// one expected; any other writer's create or delete in between moves the
// version past it, and the round lists the children as before.
//
// The stat read is a read like the listing: it is the round's fence read
// (the version of /brokers/topics the multi expects comes from it), and the
// topic cache's event barrier follows it as it followed the listing.
//
// A pre-read (admin_create_preread.go) does not even read the stat when
// the kept listing is exact: the multi that left it saw the children
// version it expected. The fence's SetData of /brokers/topics comes first
// in the multi, and ZooKeeper answers it with the stat as of that op,
// before the multi's creates: its children version tells whether any
// other writer created or deleted a topic since the listing the round
// planned on. That is what the stat read of the next round would tell,
// as of the same moment or a little later; and a pre-read may plan on a
// state a round old anyway, since it is sent before the multi it follows.
// A fresh read never trusts it.

// topicListing is the children of /brokers/topics, sorted, as of children
// version cversion. What it lists never changes once made; read the names
// with sorted.
type topicListing struct {
	names []string
	// added, when set, are names (sorted, without repeats) that sorted
	// merges into names on first use: a round leaves its listing this way,
	// so that the merge, which copies every name of the cluster, is done by
	// the next read that takes the listing (a pre-read, off the path of the
	// request) rather than by the round before it answers.
	added    []string
	merge    sync.Once
	cversion int32
	// version is the data version of /brokers/topics (the fence) with it.
	version int32
	// exact: left by a multi whose fence saw the children version it
	// expected, so a pre-read may take it without a stat read.
	exact bool
}

// sorted returns the names, sorted.
func (l *topicListing) sorted() []string {
	l.merge.Do(func() {
		if len(l.added) > 0 {
			l.names, l.added = mergeSorted(l.names, l.added, strings.Compare), nil
		}
	})
	return l.names
}

// listingMemo holds the Admin's last topicListing; safe for concurrent use.
type listingMemo struct {
	mu   sync.Mutex
	last *topicListing
}

func (m *listingMemo) get() *topicListing {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// set keeps l, unless it is older than the listing kept (a read that
// overlapped a multi may finish after the multi's listing is kept); nil
// forgets the listing.
func (m *listingMemo) set(l *topicListing) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l != nil && m.last != nil && l.cversion < m.last.cversion {
		return
	}
	if l != nil && m.last != nil && m.last.exact && !l.exact && l.cversion == m.last.cversion && l.version == m.last.version {
		return // a read of the same state: the kept one is as good, and exact
	}
	m.last = l
}

// listTopics lists /brokers/topics, sorted, with its stat. With known, a
// stat read comes first, and known's names are returned when the children
// version matches; with an exact known and trustExact, known is returned
// without a read.
func (a *Admin) listTopics(ctx context.Context, known *topicListing, trustExact bool) ([]string, Stat, error) {
	if known != nil && known.exact && trustExact {
		return known.sorted(), Stat{Version: known.version, Cversion: known.cversion}, nil
	}
	if known != nil {
		ok, st, err := a.zk.Exists(ctx, znodes.TopicsPath)
		switch {
		case err != nil:
			return nil, st, err
		case !ok:
			return nil, st, ErrNoNode
		case st.Cversion == known.cversion:
			return known.sorted(), st, nil
		}
	}
	names, st, err := a.zk.Children(ctx, znodes.TopicsPath)
	sort.Strings(names)
	return names, st, err
}

// listingAfter is the listing c's round leaves once its multis created
// the topics created (and nothing else changed the children), with the
// fence at version; exact when the multis' fences saw the children version
// expected.
func (c *Cluster) listingAfter(created []string, version int32, exact bool) *topicListing {
	added := slices.Sorted(slices.Values(created))
	return &topicListing{names: c.TopicNames, added: slices.Compact(added),
		cversion: c.topicsCversion + int32(len(created)), version: version, exact: exact}
}

// mergeSorted returns a new slice of the items of a and b, each sorted by
// cmp without repeats, in order, an item in both once (a's). The create
// path adds a round's few topics to the cluster's thousands this way:
// sorting the whole again was the largest cost of a small round at 5k
// topics. Each item of b is placed by a binary search in a, and the runs
// of a between them are copied whole, so a round costs the few compares
// of its new names rather than one per topic of the cluster.
func mergeSorted[T any](a, b []T, cmp func(x, y T) int) []T {
	out := make([]T, 0, len(a)+len(b))
	for _, y := range b {
		i, found := slices.BinarySearchFunc(a, y, cmp)
		out, a = append(out, a[:i]...), a[i:]
		if found {
			out, a = append(out, a[0]), a[1:]
			continue
		}
		out = append(out, y)
	}
	return append(out, a...)
}
