package daemon

import (
	"testing"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestViewAdapterSharesSnapshot checks that a handler view is the
// controller's snapshot as is (topics shared, not copied), built once per
// snapshot, and that a standby's lists the active controller's node
// without changing the snapshot.
func TestViewAdapterSharesSnapshot(t *testing.T) {
	ep := []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "ctl", Port: 9092, SecurityProtocol: "PLAINTEXT"}}
	dir := &controllerDir{}
	a := newViewAdapter(nil, "cid")
	a.dir = dir

	topic := &controller.TopicView{Name: "foo", Partitions: []controller.PartitionView{{Leader: 1}}}
	active := &controller.MetadataView{Active: true, ControllerID: 5, Epoch: 3,
		Brokers: []controller.BrokerView{{ID: 1}}, Topics: controller.NewTopicViews(map[string]*controller.TopicView{"foo": topic})}
	v := a.wrap(active)
	if !v.Active || v.ClusterID != "cid" || v.Epoch != 3 || len(v.Brokers) != 1 || v.Live("foo") != topic {
		t.Fatalf("active view %+v", v)
	}
	if a.wrap(active) != v {
		t.Error("same snapshot wrapped twice")
	}

	standby := &controller.MetadataView{ControllerID: 7, Topics: controller.TopicViews{}}
	if v := a.wrap(standby); len(v.Brokers) != 0 || v.Active {
		t.Errorf("standby without a known controller lists %+v", v.Brokers)
	}
	dir.active.Store(&controller.BrokerView{ID: 7, Endpoints: ep})
	v = a.wrap(standby)
	if len(v.Brokers) != 1 || v.Brokers[0].ID != 7 || v.Brokers[0].Endpoints[0].Host != "ctl" {
		t.Errorf("standby lists %+v", v.Brokers)
	}
	if b, ok := v.Broker(7); !ok || b.ID != 7 {
		t.Errorf("Broker(7) = %+v, %v", b, ok)
	}
	if len(standby.Brokers) != 0 {
		t.Errorf("snapshot changed: %+v", standby.Brokers)
	}
	dir.active.Store(&controller.BrokerView{ID: 8, Endpoints: ep}) // another node than /controller names
	if v := a.wrap(standby); len(v.Brokers) != 0 {
		t.Errorf("standby lists a node that is not the controller: %+v", v.Brokers)
	}

	if v := a.wrap(nil); v.ControllerID != -1 || v.ClusterID != "cid" || v.Active {
		t.Errorf("no snapshot: %+v", v)
	}
}
