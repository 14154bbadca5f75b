package handler

import (
	"context"
	"sort"
	"sync"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/znodes"
)

// View is what the handlers answer from: the controller's snapshot plus
// what only the serving node knows. Whoever publishes a View must not
// change it (or anything it points to) afterwards; handlers only read it.
//
// The embedded MetadataView is a shallow copy of the controller's
// snapshot: its topic views are the snapshot's own, shared rather than
// converted, so a new snapshot costs the handlers nothing per topic. Its
// fields mean what they mean there, with two additions for the wire API:
// Brokers of a standby's view list the active controller's node, when the
// standby knows its endpoints, so that clients that reach only the
// standby can find the controller (the snapshot's own has no brokers);
// and Self is never among Brokers. Topics queued for deletion are in
// Topics with Deleting set; see Live.
type View struct {
	controller.MetadataView
	// ClusterID is /cluster/id; "" when unknown (Metadata then sends null).
	ClusterID string
}

// emptyView is an inactive view that knows no controller.
func emptyView() *View {
	return &View{MetadataView: controller.MetadataView{ControllerID: -1}}
}

// Broker returns the listed broker with this id.
func (v *View) Broker(id int32) (controller.BrokerView, bool) {
	i := sort.Search(len(v.Brokers), func(i int) bool { return v.Brokers[i].ID >= id })
	if i < len(v.Brokers) && v.Brokers[i].ID == id {
		return v.Brokers[i], true
	}
	return controller.BrokerView{}, false
}

// Topic returns the topic, nil when unknown. Topics queued for deletion
// are returned too; see Live.
func (v *View) Topic(name string) *controller.TopicView {
	return v.Topics.Get(name)
}

// Live returns the topic unless it is unknown or queued for deletion:
// Kafka's brokers drop a topic from their metadata as soon as its deletion
// starts, so clients see such a topic as gone.
func (v *View) Live(name string) *controller.TopicView {
	if t := v.Topic(name); t != nil && !t.Deleting {
		return t
	}
	return nil
}

// TopicByID returns the topic with this id, nil when none.
func (v *View) TopicByID(id znodes.UUID) *controller.TopicView {
	if id.IsZero() {
		return nil
	}
	for _, t := range v.Topics.All() {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// SortedTopics returns the topic names in order.
func (v *View) SortedTopics() []string {
	out := make([]string, 0, v.Topics.Len())
	for name := range v.Topics.All() {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Views holds the latest View and wakes waiters when a new one is
// published. It implements Cluster: the controller adapter calls Publish
// after every change, and handlers call View and WaitView. The zero value
// is not usable; call NewViews.
type Views struct {
	mu      sync.Mutex
	cur     *View
	changed chan struct{} // closed and replaced on every Publish
}

// NewViews returns Views holding v (nil means an empty, inactive view).
func NewViews(v *View) *Views {
	if v == nil {
		v = emptyView()
	}
	return &Views{cur: v, changed: make(chan struct{})}
}

// Publish makes v the current view. v must not be changed afterwards.
func (p *Views) Publish(v *View) {
	p.mu.Lock()
	p.cur = v
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// View returns the current view.
func (p *Views) View() *View {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur
}

// WaitView returns the first current view for which cond holds: the one
// current now, or one published later. It returns ctx's error, with the
// latest view, if ctx ends first.
func (p *Views) WaitView(ctx context.Context, cond func(*View) bool) (*View, error) {
	for {
		p.mu.Lock()
		v, changed := p.cur, p.changed
		p.mu.Unlock()
		if cond(v) {
			return v, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return p.View(), ctx.Err()
		}
	}
}
