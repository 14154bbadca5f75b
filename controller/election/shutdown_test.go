package election

import (
	"errors"
	"slices"
	"testing"
)

func TestValidateControlledShutdown(t *testing.T) {
	cases := []struct {
		name        string
		active      bool
		epoch       int64
		registered  bool
		cachedEpoch int64
		code        int16 // 0: accepted
		msg         string
	}{
		{name: "accepted with matching epoch", active: true, epoch: 50, registered: true, cachedEpoch: 50},
		{name: "a newer epoch is accepted", active: true, epoch: 60, registered: true, cachedEpoch: 50},
		{name: "epoch -1 skips the check", active: true, epoch: UnknownBrokerEpoch, registered: true, cachedEpoch: 50},
		{name: "not the controller", active: false, epoch: 50, registered: true, cachedEpoch: 50,
			code: CodeStaleControllerEpoch},
		{name: "not the controller wins over everything", active: false, epoch: 1, registered: false,
			code: CodeStaleControllerEpoch},
		{name: "stale broker epoch", active: true, epoch: 40, registered: true, cachedEpoch: 50,
			code: CodeStaleBrokerEpoch,
			msg:  "Received controlled shutdown request from an old broker epoch 40 for broker 5. Current broker epoch is 50."},
		{name: "unknown broker with a real epoch fails the lookup", active: true, epoch: 40, registered: false,
			code: CodeUnknownServerError},
		{name: "unknown broker without an epoch", active: true, epoch: UnknownBrokerEpoch, registered: false,
			code: CodeBrokerNotAvailable, msg: "Broker id 5 does not exist."},
	}
	for _, c := range cases {
		err := ValidateControlledShutdown(c.active, 5, c.epoch, c.registered, c.cachedEpoch)
		if c.code == 0 {
			if err != nil {
				t.Errorf("%s: unexpected %v", c.name, err)
			}
			continue
		}
		var rej *ShutdownRejectedError
		if !errors.As(err, &rej) || rej.Code != c.code || rej.Broker != 5 {
			t.Errorf("%s: got %v, want code %d", c.name, err, c.code)
			continue
		}
		if c.msg != "" && rej.Msg != c.msg {
			t.Errorf("%s: msg %q, want %q", c.name, rej.Msg, c.msg)
		}
		if rej.Error() == "" {
			t.Errorf("%s: empty error text", c.name)
		}
	}
}

func TestPlanControlledShutdown(t *testing.T) {
	parts := []ShutdownPartition{
		{Partition: tp(0), Replicas: ids(1, 2, 3), Current: st(1, 0, 1, 2, 3)},                       // led
		{Partition: tp(1), Replicas: ids(2, 1, 3), Current: st(2, 0, 1, 2, 3)},                       // followed
		{Partition: tp(2), Replicas: ids(1), Current: st(1, 0, 1)},                                   // RF 1
		{Partition: tp(3), Replicas: ids(1, 2), Current: nil},                                        // no leadership
		{Partition: tp(4), Replicas: ids(1, 2), Current: st(1, 0, 1, 2), TopicDeleting: true},        // deleting
		{Partition: tp(5), Replicas: ids(2, 3), Current: st(2, 0, 2, 3)},                             // not hosted
		{Partition: tp(6), Replicas: ids(2, 1), Current: st(NoLeader, 0, 2)},                         // leaderless: follower path
		{Partition: tp(7), Replicas: ids(3, 1), Current: st(3, 0, 3)},                                // followed, not in ISR
		{Partition: tp(8), Replicas: ids(1, 2), Current: st(1, 0, 1), TopicDeleting: true},           // deleting, RF 2
		{Partition: tp(9), Replicas: ids(1, 2, 3), Current: st(1, 0, 1, 2, 3), TopicDeleting: false}, // led
	}
	plan := PlanControlledShutdown(1, parts)
	check := func(name string, got, want []TopicPartition) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("lead", plan.Lead, []TopicPartition{tp(0), tp(9)})
	check("follow", plan.Follow, []TopicPartition{tp(1), tp(6), tp(7)})
	check("untouched", plan.Untouched, []TopicPartition{tp(2), tp(3), tp(4), tp(8)})

	empty := PlanControlledShutdown(7, parts)
	if len(empty.Lead)+len(empty.Follow)+len(empty.Untouched) != 0 {
		t.Errorf("broker hosting nothing: %+v", empty)
	}
}

func TestRemainingLeaders(t *testing.T) {
	parts := []ShutdownPartition{
		{Partition: tp(0), Replicas: ids(1, 2), Current: st(1, 1, 1)},                         // election failed
		{Partition: tp(1), Replicas: ids(1, 2), Current: st(2, 1, 2)},                         // moved
		{Partition: tp(2), Replicas: ids(1), Current: st(1, 0, 1)},                            // RF 1: not reported
		{Partition: tp(3), Replicas: ids(1, 2), Current: st(1, 0, 1, 2), TopicDeleting: true}, // deleting
		{Partition: tp(4), Replicas: ids(1, 2), Current: nil},                                 // no leadership
	}
	if got := RemainingLeaders(1, parts); !slices.Equal(got, []TopicPartition{tp(0)}) {
		t.Errorf("got %v, want [foo-0]", got)
	}
	if got := RemainingLeaders(2, parts); !slices.Equal(got, []TopicPartition{tp(1)}) {
		t.Errorf("broker 2: got %v", got)
	}
}

// TestControlledShutdownFlow runs the controller's controlled-shutdown steps
// on pure functions for two brokers shutting down one after the other, and
// checks that no shutting-down broker is ever chosen or left in an ISR of
// an elected partition, and what remains to report.
func TestControlledShutdownFlow(t *testing.T) {
	live := NewSnapshot(1, 2, 3)
	parts := []ShutdownPartition{
		{Partition: tp(0), Replicas: ids(1, 2, 3), Current: st(1, 0, 1, 2, 3)},
		{Partition: tp(1), Replicas: ids(2, 1, 3), Current: st(2, 0, 2, 1, 3)},
		{Partition: tp(2), Replicas: ids(1, 2), Current: st(1, 0, 1)}, // 2 out of the ISR: cannot move
		{Partition: tp(3), Replicas: ids(1), Current: st(1, 0, 1)},    // RF 1
	}
	shutdown := func(broker int32) []TopicPartition {
		live.WithShutdown(broker)
		plan := PlanControlledShutdown(broker, parts)
		env := testEnv(live)
		for i := range parts {
			p := &parts[i]
			switch {
			case slices.Contains(plan.Lead, p.Partition):
				res := ElectLeader(env, ControlledShutdown(), PartitionInput{
					Partition: p.Partition, Assignment: assign(p.Replicas...), Current: p.Current})
				if res.Err != nil {
					continue
				}
				if live.ShuttingDown(res.LeaderAndIsr.Leader) {
					t.Fatalf("%v: elected shutting-down broker %d", p.Partition, res.LeaderAndIsr.Leader)
				}
				for _, r := range res.LeaderAndIsr.ISR {
					if live.ShuttingDown(r) {
						t.Fatalf("%v: shutting-down broker %d left in ISR %v", p.Partition, r, res.LeaderAndIsr.ISR)
					}
				}
				if !slices.Contains(res.Recipients, broker) {
					t.Errorf("%v: the departing broker %d must learn it is a follower: %v", p.Partition, broker, res.Recipients)
				}
				next := res.LeaderAndIsr
				p.Current = &next
			case slices.Contains(plan.Follow, p.Partition):
				rm := RemoveReplicaFromISR(env, broker, p.Partition, p.Current, p.TopicDeleting)
				if rm.Outcome == IsrWrite || rm.Outcome == IsrUnchanged {
					next := rm.LeaderAndIsr
					p.Current = &next
				}
			}
		}
		return RemainingLeaders(broker, parts)
	}

	if got := shutdown(1); !slices.Equal(got, []TopicPartition{tp(2)}) {
		t.Fatalf("broker 1 remaining = %v, want [foo-2]", got)
	}
	if l := parts[0].Current; l.Leader != 2 || !slices.Equal(l.ISR, ids(2, 3)) || l.LeaderEpoch != 1 {
		t.Errorf("foo-0 after broker 1: %v", l)
	}
	if l := parts[1].Current; l.Leader != 2 || !slices.Equal(l.ISR, ids(2, 3)) || l.LeaderEpoch != 1 {
		t.Errorf("foo-1 after broker 1 (follower removal): %v", l)
	}
	// Broker 2 now shuts down too: foo-0 and foo-1 move to 3, the only
	// broker left, and the ISR holds no shutting-down broker.
	if got := shutdown(2); len(got) != 0 {
		t.Fatalf("broker 2 remaining = %v, want none", got)
	}
	for _, i := range []int{0, 1} {
		if l := parts[i].Current; l.Leader != 3 || !slices.Equal(l.ISR, ids(3)) || l.LeaderEpoch != 2 {
			t.Errorf("%v after broker 2: %v", parts[i].Partition, l)
		}
	}
}
