package handler

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestCoordinatorPartitionMatchesJava checks keys' partitions of 50
// against Kafka's Utils.abs(key.hashCode) % 50 as printed by Java 17
// (internal/javahash tests the hashes themselves): a negative hash, and
// the key whose hash is Integer.MIN_VALUE, whose abs Kafka takes as 0.
func TestCoordinatorPartitionMatchesJava(t *testing.T) {
	for key, want := range map[string]int32{
		"": 0, "a": 47, "hello": 22, "my-group": 12, "console-consumer-12345": 6,
		"Ω-gruppe-✓": 5, "𝄞clef": 28, "txn-1": 10, "polygenelubricants": 0,
	} {
		if p := coordinatorPartition(key, 50); p != want {
			t.Errorf("partition of %q = %d, Kafka says %d", key, p, want)
		}
	}
}

// internalTopic is an internal topic of n partitions, partition p led by
// broker p%3+1; partition 12's leader is offline.
func internalTopic(name string, id byte, n int) *controller.TopicView {
	asg := make([][]int32, n)
	for p := range asg {
		asg[p] = []int32{int32(p%3 + 1)}
	}
	t := onlineTopic(name, id, asg...)
	t.Partitions[12].Leader = -1
	return t
}

// coordinatorLine renders a v0-3 answer, or one v4+ coordinator.
func coordinatorLine(code int16, msg *string, node int32, host string, port int32) string {
	return fmt.Sprintf("%d/%s/%d/%s/%d", code, ptr(msg), node, host, port)
}

func findCoordinatorReq(version int16, keyType int8, keys ...string) *kmsg.FindCoordinatorRequest {
	r := kmsg.NewPtrFindCoordinatorRequest()
	r.Version, r.CoordinatorType = version, keyType
	if version >= 4 {
		r.CoordinatorKeys = keys
	} else {
		r.CoordinatorKey = keys[0]
	}
	return r
}

// TestFindCoordinator: the leader of the key's partition of the internal
// topic answers, at every version, with Kafka's messages; authorization
// per key type; no leader is COORDINATOR_NOT_AVAILABLE.
func TestFindCoordinator(t *testing.T) {
	v := withTopics(baseView(), internalTopic(znodes.GroupMetadataTopic, 1, 50),
		internalTopic(znodes.TransactionStateTopic, 2, 50))
	f := newFixture(t, v, func(o *Options) {
		o.Authorizer = denyAuthz{deny(OpDescribe, "secret-group"): true, deny(OpDescribe, "secret-txn"): true}
	})
	one := func(version int16, keyType int8, key string) string {
		t.Helper()
		r := f.call(findCoordinatorReq(version, keyType, key)).(*kmsg.FindCoordinatorResponse)
		return coordinatorLine(r.ErrorCode, r.ErrorMessage, r.NodeID, r.Host, r.Port)
	}
	// "hello" hashes to partition 22 (broker 2), "a" to 47 (broker 3),
	// "my-group" to 12 (no leader), "txn-1" to 10 (broker 2).
	for _, c := range []struct {
		version int16
		keyType int8
		key     string
		want    string
	}{
		{0, 1, "hello", "0/<nil>/2/127.0.0.1/9002"}, // v0 has no key type: always a group
		{1, 0, "a", "0/NONE/3/127.0.0.1/9003"},
		{3, 0, "hello", "0/NONE/2/127.0.0.1/9002"},
		{2, 0, "my-group", "15/The coordinator is not available./-1//-1"},
		{3, 1, "txn-1", "0/NONE/2/127.0.0.1/9002"},
		{3, 0, "secret-group", "30/Group authorization failed./-1//-1"},
		{3, 1, "secret-txn", "53/Transactional Id authorization failed./-1//-1"},
		{3, 5, "x", "42/Unknown coordinator type received: 5/-1//-1"},
	} {
		if got := one(c.version, c.keyType, c.key); got != c.want {
			t.Errorf("v%d type %d %q: %s, want %s", c.version, c.keyType, c.key, got, c.want)
		}
	}
	r := f.call(findCoordinatorReq(4, 0, "hello", "my-group", "secret-group")).(*kmsg.FindCoordinatorResponse)
	var got []string
	for _, c := range r.Coordinators {
		got = append(got, c.Key+"="+coordinatorLine(c.ErrorCode, c.ErrorMessage, c.NodeID, c.Host, c.Port))
	}
	want := []string{"hello=0/<nil>/2/127.0.0.1/9002", "my-group=15/<nil>/-1//-1", "secret-group=30/<nil>/-1//-1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("v4: %v, want %v", got, want)
	}
	if len(f.admin.creates) != 0 {
		t.Errorf("created %v with the internal topics present", f.admin.creates)
	}
}

// TestFindCoordinatorCreatesTheInternalTopic: a missing internal topic is
// created once per request, with kzadmind's offsets.topic.* settings, and
// each key answered COORDINATOR_NOT_AVAILABLE; a standby creates nothing.
func TestFindCoordinatorCreatesTheInternalTopic(t *testing.T) {
	f := newFixture(t, baseView())
	r := f.call(findCoordinatorReq(4, 0, "g", "h", "i")).(*kmsg.FindCoordinatorResponse)
	for _, c := range r.Coordinators {
		if c.ErrorCode != kerr.CoordinatorNotAvailable.Code || c.NodeID != -1 {
			t.Errorf("%s: answer %d node %d, want COORDINATOR_NOT_AVAILABLE, -1", c.Key, c.ErrorCode, c.NodeID)
		}
	}
	if len(f.admin.creates) != 1 || f.admin.creates[0].Topic != znodes.GroupMetadataTopic ||
		f.admin.creates[0].Partitions != 50 || f.admin.creates[0].Config["cleanup.policy"] != "compact" {
		t.Errorf("creates %+v, want __consumer_offsets with 50 partitions, compacted", f.admin.creates)
	}

	standby := baseView()
	standby.Active = false
	g := newFixture(t, standby)
	r = g.call(findCoordinatorReq(3, 1, "t")).(*kmsg.FindCoordinatorResponse)
	if r.ErrorCode != kerr.CoordinatorNotAvailable.Code || len(g.admin.creates) != 0 {
		t.Errorf("standby: answer %d, creates %v", r.ErrorCode, g.admin.creates)
	}
}

// TestEmptyAnswers: ListGroups and ListTransactions answer that kzadmind
// has nothing, DescribeLogDirs one empty directory, after checking
// DESCRIBE on the cluster.
func TestEmptyAnswers(t *testing.T) {
	f := newFixture(t, baseView())
	for v := int16(0); v <= 5; v++ {
		r := kmsg.NewPtrListGroupsRequest()
		r.Version = v
		if resp := f.call(r).(*kmsg.ListGroupsResponse); resp.ErrorCode != 0 || len(resp.Groups) != 0 {
			t.Errorf("ListGroups v%d: %+v", v, resp)
		}
	}
	lt := kmsg.NewPtrListTransactionsRequest()
	lt.Version, lt.StateFilters = 1, []string{"Ongoing", "Bogus", "CompleteAbort", "ongoing"}
	if resp := f.call(lt).(*kmsg.ListTransactionsResponse); resp.ErrorCode != 0 || len(resp.TransactionStates) != 0 ||
		fmt.Sprint(resp.UnknownStateFilters) != "[Bogus ongoing]" {
		t.Errorf("ListTransactions: %+v", resp)
	}
	dl := kmsg.NewPtrDescribeLogDirsRequest()
	dl.Version = 4
	if resp := f.call(dl).(*kmsg.DescribeLogDirsResponse); resp.ErrorCode != 0 || len(resp.Dirs) != 1 ||
		resp.Dirs[0].Dir != noLogDir || resp.Dirs[0].ErrorCode != 0 || len(resp.Dirs[0].Topics) != 0 || resp.Dirs[0].TotalBytes != -1 {
		t.Errorf("DescribeLogDirs: %+v, want one empty directory", resp)
	}
	denied := newFixture(t, baseView(), func(o *Options) {
		o.Authorizer = denyAuthz{deny(OpDescribe, ClusterResourceName): true}
	})
	if resp := denied.call(dl).(*kmsg.DescribeLogDirsResponse); resp.ErrorCode != kerr.ClusterAuthorizationFailed.Code || len(resp.Dirs) != 0 {
		t.Errorf("DescribeLogDirs without DESCRIBE on the cluster: %+v", resp)
	}
}
