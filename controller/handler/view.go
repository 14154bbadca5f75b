package handler

import (
	"context"
	"sort"
	"sync"

	"github.com/kzadmin/kzadmin/znodes"
)

// View is an immutable snapshot of what the controller knows, as the
// handlers answer from it. Whoever publishes a View must not change it (or
// anything it points to) afterwards; handlers only read it.
type View struct {
	// Active reports whether this node is the active controller. Admin
	// requests are answered NOT_CONTROLLER when it is false.
	Active bool
	// ControllerID is the active controller's id, -1 when unknown.
	ControllerID int32
	// ClusterID is /cluster/id; "" when unknown (Metadata then sends null).
	ClusterID string
	// Self is this controller node as it lists itself among the brokers
	// (design brief §3): node.id and its listeners' endpoints, no rack.
	Self Broker
	// Brokers are the registered brokers, ascending by id. Self is not
	// among them. A standby's view lists the active controller's node
	// here instead, when it knows its endpoints, so that clients that
	// reach only the standby can find the controller.
	Brokers []Broker
	// Topics maps topic name to topic. Topics queued for deletion are here
	// with Deleting set.
	Topics map[string]*Topic
}

// Broker is a live broker (or the controller itself).
type Broker struct {
	ID        int32
	Rack      *string
	Endpoints []znodes.Endpoint
}

// Topic is one topic.
type Topic struct {
	Name string
	// ID is the topic id; zero when the topic znode has none yet.
	ID znodes.UUID
	// Deleting is set once the topic is queued for deletion.
	Deleting bool
	// Partitions are ordered by partition id, which runs 0..n-1.
	Partitions []Partition
}

// Partition is one partition's assignment and leadership.
type Partition struct {
	ID int32
	// Leader is -1 when there is none; LeaderEpoch is -1 when the
	// controller knows no leadership for the partition.
	Leader      int32
	LeaderEpoch int32
	// Replicas is the assignment, preferred leader first.
	Replicas []int32
	ISR      []int32
	// Offline are the replicas the controller considers offline (broker
	// dead or shutting down, or log directory failed).
	Offline []int32
	// Adding and Removing are non-empty while a reassignment runs.
	Adding   []int32
	Removing []int32
	// ELR and LastKnownELR are KIP-966's eligible leader replicas; nil
	// until ELR is enabled.
	ELR          []int32
	LastKnownELR []int32
}

// Broker returns the registered broker with this id.
func (v *View) Broker(id int32) (Broker, bool) {
	i := sort.Search(len(v.Brokers), func(i int) bool { return v.Brokers[i].ID >= id })
	if i < len(v.Brokers) && v.Brokers[i].ID == id {
		return v.Brokers[i], true
	}
	return Broker{}, false
}

// Topic returns the topic, nil when unknown. Topics queued for deletion
// are returned too; see Live.
func (v *View) Topic(name string) *Topic {
	if v.Topics == nil {
		return nil
	}
	return v.Topics[name]
}

// Live returns the topic unless it is unknown or queued for deletion:
// Kafka's brokers drop a topic from their metadata as soon as its deletion
// starts, so clients see such a topic as gone.
func (v *View) Live(name string) *Topic {
	if t := v.Topic(name); t != nil && !t.Deleting {
		return t
	}
	return nil
}

// TopicByID returns the topic with this id, nil when none.
func (v *View) TopicByID(id znodes.UUID) *Topic {
	if id.IsZero() {
		return nil
	}
	for _, t := range v.Topics {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// SortedTopics returns the topic names in order.
func (v *View) SortedTopics() []string {
	out := make([]string, 0, len(v.Topics))
	for name := range v.Topics {
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
		v = &View{ControllerID: -1}
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
