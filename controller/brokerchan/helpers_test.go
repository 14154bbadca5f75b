package brokerchan

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// fakeView is a map-backed View.
type fakeView struct {
	election.Snapshot
	brokers  map[int32]Broker
	ids      map[string]znodes.UUID
	deleting map[string]bool
	replicas map[election.TopicPartition][]int32
	leaders  map[election.TopicPartition]election.LeaderAndIsr
}

func newFakeView() *fakeView {
	return &fakeView{
		Snapshot: election.NewSnapshot(),
		brokers:  map[int32]Broker{},
		ids:      map[string]znodes.UUID{},
		deleting: map[string]bool{},
		replicas: map[election.TopicPartition][]int32{},
		leaders:  map[election.TopicPartition]election.LeaderAndIsr{},
	}
}

func (v *fakeView) Broker(id int32) (Broker, bool) { b, ok := v.brokers[id]; return b, ok }

func (v *fakeView) Brokers() []Broker {
	out := make([]Broker, 0, len(v.brokers))
	for _, b := range v.brokers {
		out = append(out, b) // map order: the batch must sort
	}
	return out
}

func (v *fakeView) TopicID(topic string) (znodes.UUID, bool) { id, ok := v.ids[topic]; return id, ok }
func (v *fakeView) QueuedForDeletion(topic string) bool      { return v.deleting[topic] }
func (v *fakeView) Replicas(tp election.TopicPartition) []int32 {
	return v.replicas[tp]
}
func (v *fakeView) Leadership(tp election.TopicPartition) (election.LeaderAndIsr, bool) {
	l, ok := v.leaders[tp]
	return l, ok
}

// addBroker registers a broker with PLAINTEXT://h<id>:9092 unless
// endpoints are given.
func (v *fakeView) addBroker(id int32, epoch int64, rack *string, endpoints ...znodes.Endpoint) {
	if len(endpoints) == 0 {
		endpoints = []znodes.Endpoint{plaintext(id)}
	}
	v.brokers[id] = Broker{ID: id, Epoch: epoch, Endpoints: endpoints, Rack: rack}
	v.Snapshot.Brokers[id] = true
}

// removeBroker unregisters a broker.
func (v *fakeView) removeBroker(id int32) {
	delete(v.brokers, id)
	delete(v.Snapshot.Brokers, id)
}

func (v *fakeView) addPartition(tp election.TopicPartition, replicas []int32, l *election.LeaderAndIsr) {
	v.replicas[tp] = replicas
	if l != nil {
		v.leaders[tp] = *l
	}
}

func plaintext(id int32) znodes.Endpoint {
	return znodes.Endpoint{Listener: "PLAINTEXT", Host: host(id), Port: 9092, SecurityProtocol: "PLAINTEXT"}
}

func host(id int32) string { return "h" + string(rune('0'+id)) }

func tp(topic string, p int32) election.TopicPartition {
	return election.TopicPartition{Topic: topic, Partition: p}
}

func strp(s string) *string { return &s }

// canon returns a deep copy of v with every empty slice made nil, so a
// built request and a decoded one compare equal whether a list is nil or
// empty.
func canon(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(canon(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(canon(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.Len() == 0 {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(canon(v.Index(i)))
		}
		return out
	}
	return v
}

// sameRequest compares requests (or any values) with canon.
func sameRequest(a, b any) bool {
	return reflect.DeepEqual(canon(reflect.ValueOf(a)).Interface(), canon(reflect.ValueOf(b)).Interface())
}

// decodeAsBroker encodes req and decodes it again: what the broker sees.
func decodeAsBroker(t *testing.T, req kmsg.Request) kmsg.Request {
	t.Helper()
	got := kmsg.RequestForKey(req.Key())
	got.SetVersion(req.GetVersion())
	if err := got.ReadFrom(req.AppendTo(nil)); err != nil {
		t.Fatalf("decode %s v%d: %v", kmsg.NameForKey(req.Key()), req.GetVersion(), err)
	}
	return got
}

// assertRequest fails unless got equals want (with canon).
func assertRequest(t *testing.T, what string, got, want kmsg.Request) {
	t.Helper()
	if !sameRequest(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, dump(got), dump(want))
	}
}

// dump renders a value as JSON, which follows pointers.
func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}

// mustIBP parses an inter.broker.protocol.version for a test table.
func mustIBP(t testing.TB, s string) config.IBP {
	t.Helper()
	v, err := config.ParseIBP(s)
	if err != nil {
		t.Fatalf("ParseIBP(%q): %v", s, err)
	}
	return v
}

// allIBPs lists every version config knows, oldest first.
func allIBPs() []config.IBP {
	out := make([]config.IBP, 0, int(config.IBPLatest)+1)
	for v := config.IBP0_8_0; v <= config.IBPLatest; v++ {
		out = append(out, v)
	}
	return out
}
