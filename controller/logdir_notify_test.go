package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// postLogDirEvent posts a log dir failure notification for broker, as a
// broker whose log directory failed does.
func postLogDirEvent(t testing.TB, zk *zkadmin.Client, broker int32) string {
	t.Helper()
	data, err := znodes.LogDirEventNotification{BrokerID: broker, Event: znodes.LogDirFailureEvent}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return postNotification(t, zk, znodes.LogDirEventSequencePath, data)
}

// waitOfflineBroker waits until id leads nothing of topic and is in no
// ISR, in ZooKeeper and in the controller's view, and the view lists it
// offline wherever it is a replica.
func (sc *simCluster) waitOfflineBroker(t testing.TB, topic string, parts map[int32][]int32, id int32) {
	t.Helper()
	waitFor(t, fmt.Sprintf("broker %d out of %s", id, topic), func() bool {
		for p, replicas := range parts {
			st, ok := tryReadState(t, sc.obs, topic, p)
			pv, vok := partitionView(sc.ctl.c, topic, p)
			if !ok || !vok || st.Leader == id || slices.Contains(st.ISR, id) || pv.PartitionEpoch != st.PartitionEpoch {
				return false
			}
			if slices.Contains(replicas, id) && !slices.Contains(pv.Offline, id) {
				return false
			}
		}
		return true
	})
}

// TestLogDirEventNotification: a broker whose log directory failed posts a
// notification; the controller sends it LeaderAndIsr for all its replicas,
// the broker answers KAFKA_STORAGE_ERROR, and its replicas go offline:
// leadership moves away (leader epoch +1) and it leaves every ISR. The
// notification, and a malformed one posted with it, are deleted.
func TestLogDirEventNotification(t *testing.T) {
	logs := &syncBuffer{}
	sc := startSimCluster(t, nodeOpts{logTo: logs}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	for p, replicas := range threeParts {
		sc.waitLeader(t, "foo", p, replicas[0], replicas...)
	}
	before := readState(t, sc.obs, "foo", 1) // led by 2
	lairs := sc.sim.Broker(2).Requests()[4]
	failLogDir(sc, 2)
	bad := postNotification(t, sc.obs, znodes.LogDirEventSequencePath, []byte(`{"version":1,"event":1}`))
	postLogDirEvent(t, sc.obs, 2)
	sc.waitOfflineBroker(t, "foo", threeParts, 2)
	after := readState(t, sc.obs, "foo", 1)
	if after.Leader != 3 || after.LeaderEpoch != before.LeaderEpoch+1 {
		t.Fatalf("foo-1 after broker 2's log dir failed: %v (before %v)", after, before)
	}
	if got := sc.sim.Broker(2).Requests()[4]; got <= lairs {
		t.Fatalf("broker 2 got no LeaderAndIsr after its log dir event (%d before, %d after)", lairs, got)
	}
	waitFor(t, "notifications deleted", func() bool {
		return len(notificationsLeft(t, sc.obs, znodes.LogDirEventNotificationPath)) == 0
	})
	if l := logs.String(); !strings.Contains(l, bad) || !strings.Contains(l, "malformed log dir event notification") {
		t.Fatalf("no clear error naming %s in the logs:\n%s", bad, l)
	}
	// Other brokers keep their replicas.
	if st := readState(t, sc.obs, "foo", 0); st.Leader != 1 || !slices.Equal(st.ISR, []int32{1, 3}) {
		t.Fatalf("foo-0 after broker 2's log dir failed: %v", st)
	}
}

// TestNotificationsAtFailover: notifications left from before a failover
// are deleted by the new controller, as Kafka does, and nothing they said
// is lost: the failover reads the ISR the leader wrote, and its full
// LeaderAndIsr finds the failed log directory.
func TestNotificationsAtFailover(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	for p, replicas := range threeParts {
		sc.waitLeader(t, "foo", p, replicas[0], replicas...)
	}
	sc.ctl.stop()
	v := writeIsrAsLeader(t, sc.obs, "foo", 2, 3, 1)
	postIsrChange(t, sc.obs, "foo", 2)
	postNotification(t, sc.obs, znodes.IsrChangeSequencePath, []byte("{"))
	failLogDir(sc, 2)
	postLogDirEvent(t, sc.obs, 2)

	sc.ctl = startNode(t, sc.chroot, nodeOpts{id: 101})
	waitFor(t, "new controller ready", func() bool { return sc.ctl.c.Status().Ready })
	for _, dir := range []string{znodes.IsrChangeNotificationPath, znodes.LogDirEventNotificationPath} {
		if left := notificationsLeft(t, sc.obs, dir); len(left) != 0 {
			t.Fatalf("%s after the failover: %v", dir, left)
		}
	}
	// The failover loaded foo-2 with the ISR the leader wrote (broker 2
	// was not in it, so its failed directory changes nothing there), and
	// broker 2's answer to the full LeaderAndIsr took its replicas offline.
	sc.waitOfflineBroker(t, "foo", threeParts, 2)
	st := readState(t, sc.obs, "foo", 2)
	if pv, _ := partitionView(sc.ctl.c, "foo", 2); st.Leader != 3 || !slices.Equal(st.ISR, []int32{3, 1}) ||
		st.PartitionEpoch != v || !slices.Equal(pv.ISR, st.ISR) {
		t.Fatalf("foo-2 after the failover: ZooKeeper %v, controller %+v", st, pv)
	}
	if st := readState(t, sc.obs, "foo", 1); st.Leader != 3 {
		t.Fatalf("foo-1 still led by broker 2, whose log dir failed: %v", st)
	}

	// The watches are armed: a notification posted now is processed.
	postIsrChange(t, sc.obs, "foo", 0)
	waitFor(t, "notification after the failover deleted", func() bool {
		return len(notificationsLeft(t, sc.obs, znodes.IsrChangeNotificationPath)) == 0
	})
}

// failLogDir fails a simulated broker's log directory. Its followers stop
// fetching too (lagging), as a real broker's replicas on a failed
// directory do; otherwise the simulated leaders would add them back to
// the ISRs.
func failLogDir(sc *simCluster, id int32) {
	sc.sim.Broker(id).SetLogDirOffline(true)
	sc.sim.Broker(id).SetLagging(true)
}

// TestDecodeLogDirEvents: broker ids come out once each, ascending;
// malformed and unreadable notifications are skipped.
func TestDecodeLogDirEvents(t *testing.T) {
	c := &Controller{log: zerolog.Nop()}
	ns := []notification{
		{name: "log_dir_event_0000000001", data: []byte(`{"version":1,"broker":3,"event":1}`)},
		{name: "log_dir_event_0000000002", data: []byte(`{"version":1,"broker":1}`)},
		{name: "log_dir_event_0000000003", data: []byte(`{"version":1,"broker":"x","event":1}`)},
		{name: "log_dir_event_0000000004", err: fmt.Errorf("read failed")},
		{name: "log_dir_event_0000000005", data: []byte(`{"version":1,"broker":3,"event":1}`)},
		{name: "log_dir_event_0000000006", data: nil},
	}
	if got, want := c.decodeLogDirEvents(ns), []int32{1, 3}; !slices.Equal(got, want) {
		t.Fatalf("decodeLogDirEvents = %v, want %v", got, want)
	}
}
