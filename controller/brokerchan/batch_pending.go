package brokerchan

import (
	"iter"
	"slices"

	"github.com/kzadmin/kzadmin/controller/election"
)

// The pending lists of a Batch. Kafka keeps them in hash maps keyed by
// partition and sorts the keys when it builds the requests. At failover
// that is a map insert per broker and partition, then a sort per broker,
// for partitions the caller already hands over in order (the controller
// walks its context sorted). A pendingList instead appends, and only sorts
// when an add arrived out of order: while every add is for a partition
// after the previous one, the list is already sorted and free of
// duplicates, and an add for the same partition as the previous one merges
// in place (the state machines add a partition once per replica, in a
// row).

// pendingItem is one partition's pending state in a pendingList.
type pendingItem[T any] interface {
	partition() election.TopicPartition
	// mergedWith returns what a later add of the same partition leaves.
	mergedWith(later T) T
}

// pendingList holds per-partition items in add order.
type pendingList[T pendingItem[T]] struct {
	items chunks[T]
	// unsorted is set once an add came before the previous one in
	// partition order; until then items are strictly ascending.
	unsorted bool
}

// add appends it, merging it into the last item when that is the same
// partition.
func (l *pendingList[T]) add(it T) {
	if last := l.items.last(); last != nil {
		switch c := comparePartitions((*last).partition(), it.partition()); {
		case c == 0:
			*last = (*last).mergedWith(it)
			return
		case c > 0:
			l.unsorted = true
		}
	}
	l.items.push(it)
}

// sorted returns the items ordered by partition with one item per
// partition, each merged from that partition's adds in add order. It
// reorders the list in place.
func (l *pendingList[T]) sorted() *chunks[T] {
	if !l.unsorted {
		return &l.items
	}
	all := l.items.flatten()
	// Stable, so that equal partitions keep their add order for the merge.
	slices.SortStableFunc(all, func(x, y T) int { return comparePartitions(x.partition(), y.partition()) })
	out := all[:0]
	for _, it := range all {
		if n := len(out); n > 0 && out[n-1].partition() == it.partition() {
			out[n-1] = out[n-1].mergedWith(it)
			continue
		}
		out = append(out, it)
	}
	l.items, l.unsorted = chunks[T]{tail: out, n: len(out)}, false
	return &l.items
}

// chunks is an append-only sequence kept in chunks that are never
// reallocated: a growing slice copies its content again at every growth
// (at 1.25× growth, allocating about five times the final size), and
// pointers to the elements stay valid. Chunks double from 8 elements up
// to maxChunk, so a small batch allocates little.
type chunks[T any] struct {
	full [][]T
	tail []T
	n    int
}

const maxChunk = 2048

// push appends v and returns a pointer to the stored copy.
func (c *chunks[T]) push(v T) *T {
	if len(c.tail) == cap(c.tail) {
		if c.tail != nil {
			c.full = append(c.full, c.tail)
		}
		c.tail = make([]T, 0, min(max(2*cap(c.tail), 8), maxChunk))
	}
	c.tail = append(c.tail, v)
	c.n++
	return &c.tail[len(c.tail)-1]
}

// last returns the last element, or nil.
func (c *chunks[T]) last() *T {
	if len(c.tail) == 0 {
		return nil
	}
	return &c.tail[len(c.tail)-1]
}

// len returns the number of elements.
func (c *chunks[T]) len() int { return c.n }

// all yields the elements in order.
func (c *chunks[T]) all() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for _, chunk := range c.full {
			for i := range chunk {
				if !yield(&chunk[i]) {
					return
				}
			}
		}
		for i := range c.tail {
			if !yield(&c.tail[i]) {
				return
			}
		}
	}
}

// flatten returns the elements in one new slice.
func (c *chunks[T]) flatten() []T {
	out := make([]T, 0, c.n)
	for _, chunk := range c.full {
		out = append(out, chunk...)
	}
	return append(out, c.tail...)
}

// laiRef is one broker's pending LeaderAndIsr for a partition: the entry
// (shared by every broker of the add, kept in Batch.laiEntries) and isNew,
// which stays true once set.
type laiRef struct {
	tp    election.TopicPartition
	entry *leaderAndIsrEntry
	isNew bool
}

func (r laiRef) partition() election.TopicPartition { return r.tp }

func (r laiRef) mergedWith(later laiRef) laiRef {
	later.isNew = later.isNew || r.isNew
	return later
}

// partition and mergedWith make updateMetadataEntry a pendingItem: the
// later add wins (it read the view later).
func (e updateMetadataEntry) partition() election.TopicPartition { return e.tp }

func (e updateMetadataEntry) mergedWith(later updateMetadataEntry) updateMetadataEntry { return later }

// partition and mergedWith make stopReplicaEntry a pendingItem: the later
// add's leader epoch wins, and delete stays true once set.
func (e stopReplicaEntry) partition() election.TopicPartition { return e.tp }

func (e stopReplicaEntry) mergedWith(later stopReplicaEntry) stopReplicaEntry {
	later.delete = later.delete || e.delete
	return later
}

// int32Slab hands out copies of small int32 slices (replica lists, ISRs)
// carved from shared chunks, so that a batch for 100k partitions makes a
// few hundred allocations for them rather than a few hundred thousand.
// Each copy is capped at its length, so appending to one reallocates
// instead of running into its neighbour. Chunks are never reused: the
// emitted requests keep pointing into them.
type int32Slab struct {
	free []int32
}

// slabChunk is the chunk size, in int32s; longer slices get their own
// allocation.
const slabChunk = 4096

// clone copies s, keeping nil nil and empty empty (as slices.Clone does).
func (a *int32Slab) clone(s []int32) []int32 {
	switch n := len(s); {
	case s == nil:
		return nil
	case n == 0:
		return []int32{}
	case n > slabChunk/8:
		return slices.Clone(s)
	default:
		if len(a.free) < n {
			a.free = make([]int32, slabChunk)
		}
		out := a.free[:n:n]
		a.free = a.free[n:]
		copy(out, s)
		return out
	}
}

// cloneState deep-copies a LeaderAndIsr.
func (a *int32Slab) cloneState(l election.LeaderAndIsr) election.LeaderAndIsr {
	l.ISR = a.clone(l.ISR)
	l.ELR = a.clone(l.ELR)
	l.LastKnownELR = a.clone(l.LastKnownELR)
	return l
}

// cloneAssignment deep-copies a ReplicaAssignment.
func (a *int32Slab) cloneAssignment(r election.ReplicaAssignment) election.ReplicaAssignment {
	return election.ReplicaAssignment{
		Replicas: a.clone(r.Replicas),
		Adding:   a.clone(r.Adding),
		Removing: a.clone(r.Removing),
	}
}
