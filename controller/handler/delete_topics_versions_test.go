package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/znodes"
)

// TestDeleteTopicsDisabledAtEveryVersion: with delete.topic.enable=false
// every entry gets INVALID_REQUEST (v0-2) or TOPIC_DELETION_DISABLED
// (v3+), names and ids echoed, before the v6 name-and-id check (reference
// apis.md §5 steps 2-3), and nothing is queued.
func TestDeleteTopicsDisabledAtEveryVersion(t *testing.T) {
	f := newFixture(t, deleteView(), func(o *Options) { o.Config.DeleteTopicEnable = false })
	for version := int16(0); version <= 6; version++ {
		code := int16(73)
		if version < 3 {
			code = 42
		}
		req := dtReq(version, 5000, "foo", "missing")
		want := dtResp(dtResult(sp("foo"), 0, code), dtResult(sp("missing"), 0, code))
		if version == 6 {
			req = dtByID(dtByID(req, nil, 2), sp("bar"), 2)
			want.Topics = append(want.Topics, dtResult(nil, 2, code), dtResult(sp("bar"), 2, code))
		}
		sameWire(t, f.call(req), want)
	}
	if len(f.admin.deletes) != 0 {
		t.Errorf("queued %v with deletion disabled", f.admin.deletes)
	}
}

// TestDeleteTopicsV6EmptyName: an empty (non-null) name is a name: with a
// zero id it is just an unknown topic, and with an id it makes the whole
// request INVALID_REQUEST (reference apis.md §5 steps 3-4).
func TestDeleteTopicsV6EmptyName(t *testing.T) {
	f := newFixture(t, deleteView())
	sameWire(t, f.call(dtByID(dtReq(6, 5000), sp(""), 0)), dtResp(dtResult(sp(""), 0, 3)))
	got := f.call(dtByID(dtByID(dtReq(6, 5000, "foo"), nil, 1), sp(""), 2))
	sameWire(t, got, dtResp(dtResult(sp("foo"), 0, 42), dtResult(nil, 1, 42), dtResult(sp(""), 2, 42)))
	if len(f.admin.deletes) != 0 {
		t.Errorf("queued %v", f.admin.deletes)
	}
}

// TestDeleteTopicsV6ResolvesIDs: an id-based entry is answered with the
// topic's name and its id; a name-based one keeps a zero id, as in ZK-mode
// Kafka; an id of a topic already being deleted resolves to its name and
// is unknown as a topic (reference apis.md §5 step 4, §3.3).
func TestDeleteTopicsV6ResolvesIDs(t *testing.T) {
	f := newFixture(t, deleteView())
	f.admin.publish = true
	req := dtByID(dtByID(dtReq(6, 5000, "bar"), nil, 1), nil, 3) // baz (3) is being deleted
	sameWire(t, f.call(req), dtResp(dtResult(sp("bar"), 0, 0), dtResult(sp("foo"), 1, 0), dtResult(sp("baz"), 3, 3)))
	if len(f.admin.deletes) != 2 || f.admin.deletes[0] != "bar" || f.admin.deletes[1] != "foo" {
		t.Errorf("queued %v, want bar and foo", f.admin.deletes)
	}
}

// TestDeleteTopicsInternalTopicNotProtected: Kafka 3.9 deletes
// __consumer_offsets like any topic (reference apis.md §5 step 4).
func TestDeleteTopicsInternalTopicNotProtected(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), onlineTopic("__consumer_offsets", 7, []int32{1}, []int32{2})))
	f.admin.publish = true
	for _, version := range []int16{0, 6} {
		f.views.Publish(withTopics(baseView(), onlineTopic("__consumer_offsets", 7, []int32{1}, []int32{2})))
		sameWire(t, f.call(dtReq(version, 5000, "__consumer_offsets")), dtResp(dtResult(sp("__consumer_offsets"), 0, 0)))
	}
	if len(f.admin.deletes) != 2 {
		t.Errorf("queued %v", f.admin.deletes)
	}
}

// TestDeleteTopicsAnswersAtOnceWhenAllFail: a request none of whose
// entries is queued never waits, whatever its timeout (reference apis.md
// §5 step 6).
func TestDeleteTopicsAnswersAtOnceWhenAllFail(t *testing.T) {
	var watched *hcrtWatchedViews
	f := newFixture(t, deleteView(), func(o *Options) {
		watched = &hcrtWatchedViews{Views: o.Cluster.(*Views)}
		o.Cluster = watched
	})
	got := f.call(dtByID(dtReq(6, 60000, "missing", "baz"), nil, 77))
	sameWire(t, got, dtResp(dtResult(sp("missing"), 0, 3), dtResult(sp("baz"), 0, 3), dtResult(nil, 77, 100)))
	if n := watched.waits.Load(); n != 0 {
		t.Errorf("waited %d times", n)
	}
}

// TestDeleteTopicsRealZooKeeper queues deletions through the real Admin:
// the marker is written, a topic being deleted then looks unknown,
// timeout <= 0 answers REQUEST_TIMED_OUT although the marker is written,
// and ErrorMessage stays null (reference apis.md §5).
func TestDeleteTopicsRealZooKeeper(t *testing.T) {
	env := hcrtNewEnv(t)
	env.create(ctTopic{name: "d1", parts: 2, rf: 2}, ctTopic{name: "d2", parts: 1, rf: 1}, ctTopic{name: "d3", parts: 1, rf: 1})
	sameWire(t, env.fx.call(dtReq(3, 10000, "d1", "nope")), dtResp(dtResult(sp("d1"), 0, 0), dtResult(sp("nope"), 0, 3)))
	if !env.zkExists(znodes.DeleteTopicPath("d1")) || env.zkTopic("d1") == nil {
		t.Error("d1: want a deletion marker, and the topic left to the controller")
	}
	// Queued: it looks gone, by name and by id.
	id1 := env.zkTopic("d1").TopicID
	req := dtByID(dtReq(6, 10000, "d1"), nil, 0)
	req.Topics[1].TopicID = id1
	want := dtResp(dtResult(sp("d1"), 0, 3), dtResult(sp("d1"), 0, 3))
	want.Topics[1].TopicID = id1
	sameWire(t, env.fx.call(req), want)

	// By id with a negative timeout: REQUEST_TIMED_OUT, and queued all the same.
	id2 := env.zkTopic("d2").TopicID
	req = dtByID(dtReq(6, -1), nil, 0)
	req.Topics[0].TopicID = id2
	want = dtResp(dtResult(sp("d2"), 0, 7))
	want.Topics[0].TopicID = id2
	sameWire(t, env.fx.call(req), want)
	if !env.zkExists(znodes.DeleteTopicPath("d2")) {
		t.Error("d2: no deletion marker after REQUEST_TIMED_OUT")
	}
	// v5 (ErrorMessage exists) with timeout 0.
	got := env.fx.call(dtReq(5, 0, "d3")).(*kmsg.DeleteTopicsResponse)
	if r := got.Topics[0]; r.ErrorCode != 7 || r.ErrorMessage != nil || !env.zkExists(znodes.DeleteTopicPath("d3")) {
		t.Errorf("d3: %+v", r)
	}
}
