package daemon

import (
	"context"
	"sync"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/handler"
)

// viewAdapter serves the admin handlers' view of the cluster from the
// controller's snapshots. The controller keeps the same *TopicView for a
// topic that did not change, so the conversion is cached per topic and a
// new snapshot costs only the topics that changed.
type viewAdapter struct {
	ctrl      *controller.Controller
	clusterID string
	// dir gives a standby the active controller's node, which its views
	// then list among the brokers so that clients can find the controller
	// (controller_dir.go); nil lists none.
	dir *controllerDir

	mu         sync.Mutex
	last       *controller.MetadataView
	lastActive *handler.Broker
	view       *handler.View
	topics     map[*controller.TopicView]*handler.Topic
}

func newViewAdapter(ctrl *controller.Controller, clusterID string) *viewAdapter {
	return &viewAdapter{ctrl: ctrl, clusterID: clusterID, topics: map[*controller.TopicView]*handler.Topic{}}
}

// View implements handler.Cluster.
func (a *viewAdapter) View() *handler.View { return a.convert(a.ctrl.Snapshot()) }

// WaitView implements handler.Cluster.
func (a *viewAdapter) WaitView(ctx context.Context, cond func(*handler.View) bool) (*handler.View, error) {
	mv, err := a.ctrl.WaitSnapshot(ctx, func(mv *controller.MetadataView) bool { return cond(a.convert(mv)) })
	return a.convert(mv), err
}

func (a *viewAdapter) convert(mv *controller.MetadataView) *handler.View {
	a.mu.Lock()
	defer a.mu.Unlock()
	if mv == nil {
		return &handler.View{ControllerID: -1, ClusterID: a.clusterID}
	}
	var active *handler.Broker
	if !mv.Active {
		active = a.dir.activeNode(mv.ControllerID)
	}
	if mv == a.last && active == a.lastActive {
		return a.view
	}
	v := &handler.View{
		Active: mv.Active, ControllerID: mv.ControllerID, ClusterID: a.clusterID,
		Self:    convertBroker(mv.Self),
		Brokers: make([]handler.Broker, 0, len(mv.Brokers)),
		Topics:  make(map[string]*handler.Topic, len(mv.Topics)),
	}
	for _, b := range mv.Brokers {
		v.Brokers = append(v.Brokers, convertBroker(b))
	}
	if active != nil { // a standby's view has no brokers, so the order holds
		v.Brokers = append(v.Brokers, *active)
	}
	cache := make(map[*controller.TopicView]*handler.Topic, len(mv.Topics))
	for name, tv := range mv.Topics {
		t, ok := a.topics[tv]
		if !ok {
			t = convertTopic(tv)
		}
		cache[tv] = t
		v.Topics[name] = t
	}
	a.last, a.lastActive, a.view, a.topics = mv, active, v, cache
	return v
}

func convertBroker(b controller.BrokerView) handler.Broker {
	return handler.Broker{ID: b.ID, Rack: b.Rack, Endpoints: b.Endpoints}
}

func convertTopic(tv *controller.TopicView) *handler.Topic {
	t := &handler.Topic{Name: tv.Name, ID: tv.ID, Deleting: tv.Deleting, Partitions: make([]handler.Partition, len(tv.Partitions))}
	for i, p := range tv.Partitions {
		t.Partitions[i] = handler.Partition{
			ID: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
			Replicas: p.Replicas, ISR: p.ISR, Offline: p.Offline,
			Adding: p.Adding, Removing: p.Removing,
			ELR: p.ELR, LastKnownELR: p.LastKnownELR,
		}
	}
	return t
}
