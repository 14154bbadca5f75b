package daemon

import (
	"context"
	"sync"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/handler"
)

// viewAdapter serves the admin handlers' view of the cluster from the
// controller's snapshots. A handler view shares the snapshot's topics, so
// it costs the same whatever the number of topics; the last one is kept
// because every request asks for the view and most see the same snapshot.
type viewAdapter struct {
	ctrl      *controller.Controller
	clusterID string
	// dir gives a standby the active controller's node, which its views
	// then list among the brokers so that clients can find the controller
	// (controller_dir.go); nil lists none.
	dir *controllerDir

	mu         sync.Mutex
	last       *controller.MetadataView
	lastActive *controller.BrokerView
	view       *handler.View
}

func newViewAdapter(ctrl *controller.Controller, clusterID string) *viewAdapter {
	return &viewAdapter{ctrl: ctrl, clusterID: clusterID}
}

// View implements handler.Cluster.
func (a *viewAdapter) View() *handler.View { return a.wrap(a.ctrl.Snapshot()) }

// WaitView implements handler.Cluster.
func (a *viewAdapter) WaitView(ctx context.Context, cond func(*handler.View) bool) (*handler.View, error) {
	mv, err := a.ctrl.WaitSnapshot(ctx, func(mv *controller.MetadataView) bool { return cond(a.wrap(mv)) })
	return a.wrap(mv), err
}

// WaitPropagated implements handler.Propagator.
func (a *viewAdapter) WaitPropagated(ctx context.Context, v *handler.View) error {
	return a.ctrl.WaitMetadataAnswered(ctx, v.MetadataSent)
}

// Sync implements handler.Synchronizer.
func (a *viewAdapter) Sync(ctx context.Context) error { return a.ctrl.Sync(ctx) }

// wrap returns the handler view of snapshot mv.
func (a *viewAdapter) wrap(mv *controller.MetadataView) *handler.View {
	if mv == nil {
		return &handler.View{MetadataView: controller.MetadataView{ControllerID: -1}, ClusterID: a.clusterID}
	}
	var active *controller.BrokerView
	if !mv.Active {
		active = a.dir.activeNode(mv.ControllerID)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if mv == a.last && active == a.lastActive {
		return a.view
	}
	v := &handler.View{MetadataView: *mv, ClusterID: a.clusterID}
	if active != nil {
		// A standby's snapshot has no brokers, so the order holds; the
		// copy keeps the snapshot itself unchanged.
		v.Brokers = append(append(make([]controller.BrokerView, 0, len(mv.Brokers)+1), mv.Brokers...), *active)
	}
	a.last, a.lastActive, a.view = mv, active, v
	return v
}
