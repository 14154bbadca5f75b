package controller

import "iter"

// topicViewShards is how many maps a TopicViews spreads its topics over.
// Publishing copies the shards an event's changed topics fall in, about
// 1/256 of the cluster each, instead of one map of every topic: at 9,000
// topics that copy was the largest cost of publishing after a create.
const topicViewShards = 256

// TopicViews maps topic names to their views. A published one is never
// changed: the next snapshot shares it, shard by shard, except for the
// shards its changed topics fall in. The zero value is empty.
type TopicViews struct {
	shards *[topicViewShards]map[string]*TopicView
	n      int
}

// NewTopicViews returns the views of m, keyed by name.
func NewTopicViews(m map[string]*TopicView) TopicViews {
	var e topicViewsEdit
	for name, t := range m {
		e.set(name, t)
	}
	return e.done()
}

// Get returns the topic's view, nil when unknown.
func (t TopicViews) Get(name string) *TopicView {
	if t.shards == nil {
		return nil
	}
	return t.shards[shardOf(name)][name]
}

// Len is the number of topics.
func (t TopicViews) Len() int { return t.n }

// All yields every topic with its view, in no particular order.
func (t TopicViews) All() iter.Seq2[string, *TopicView] {
	return func(yield func(string, *TopicView) bool) {
		if t.shards == nil {
			return
		}
		for _, shard := range t.shards {
			for name, v := range shard {
				if !yield(name, v) {
					return
				}
			}
		}
	}
}

// With returns a copy with these views set (keyed by their names).
func (t TopicViews) With(views ...*TopicView) TopicViews {
	e := t.edit()
	for _, v := range views {
		e.set(v.Name, v)
	}
	return e.done()
}

// Without returns a copy without these topics.
func (t TopicViews) Without(names ...string) TopicViews {
	e := t.edit()
	for _, name := range names {
		e.remove(name)
	}
	return e.done()
}

func (t TopicViews) edit() topicViewsEdit { return topicViewsEdit{base: t, n: t.n} }

// topicViewsEdit builds the next TopicViews from base, copying a shard of
// base the first time it changes.
type topicViewsEdit struct {
	base   TopicViews
	shards *[topicViewShards]map[string]*TopicView
	copied [topicViewShards]bool
	n      int
}

// shard returns shard i of the result, ready to change.
func (e *topicViewsEdit) shard(i uint32) map[string]*TopicView {
	if e.shards == nil {
		e.shards = new([topicViewShards]map[string]*TopicView)
		if e.base.shards != nil {
			*e.shards = *e.base.shards
		}
	}
	if !e.copied[i] {
		m := make(map[string]*TopicView, len(e.shards[i])+1)
		for k, v := range e.shards[i] {
			m[k] = v
		}
		e.shards[i], e.copied[i] = m, true
	}
	return e.shards[i]
}

func (e *topicViewsEdit) set(name string, v *TopicView) {
	s := e.shard(shardOf(name))
	if _, ok := s[name]; !ok {
		e.n++
	}
	s[name] = v
}

func (e *topicViewsEdit) remove(name string) {
	i := shardOf(name)
	cur := e.base.shards
	if e.shards != nil {
		cur = e.shards
	}
	if cur == nil {
		return
	}
	if _, ok := cur[i][name]; !ok {
		return // no shard to copy
	}
	delete(e.shard(i), name)
	e.n--
}

// done returns the result; base is left as it was.
func (e *topicViewsEdit) done() TopicViews {
	if e.shards == nil {
		return TopicViews{shards: e.base.shards, n: e.base.n}
	}
	return TopicViews{shards: e.shards, n: e.n}
}

// shardOf is FNV-1a of the name, folded onto the shards.
func shardOf(name string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return h % topicViewShards
}
