package deletion

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/kzadmin/kzadmin/controller/election"
)

// TestScenarios runs the step-by-step scenarios in testdata with
// datadriven: each directive is a command, a "----" line and the expected
// output (the effects one step produced, one per line; "(nothing)" when it
// produced none). Lines starting with '#' are comments. Run with -rewrite
// to regenerate the expected outputs.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := &scenario{c: newFakeCluster(), m: New(Options{})}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			args := make([]string, len(d.CmdArgs))
			for i, a := range d.CmdArgs {
				args[i] = a.String()
			}
			got, err := s.run(d.Cmd, args)
			if err != nil {
				d.Fatalf(t, "%s: %v", d.FullCmd(), err)
			}
			if got == "" {
				return "(nothing)"
			}
			return got
		})
	})
}

// scenario holds the cluster and the manager a scenario acts on.
type scenario struct {
	c *fakeCluster
	m *Manager
}

func (s *scenario) run(cmd string, args []string) (string, error) {
	if out, ok, err := s.setup(cmd, args); ok {
		return out, err
	}
	ev, err := parseEvent(cmd, args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, e := range s.m.Step(s.c, ev) {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.String())
	}
	return b.String(), nil
}

// setup handles the commands that change the cluster or inspect the
// manager; ok is false for an event.
func (s *scenario) setup(cmd string, args []string) (out string, ok bool, err error) {
	switch cmd {
	case "brokers":
		ids, err := parseIDs(args)
		s.c.Snapshot = election.NewSnapshot(ids...)
		return "ok", true, err
	case "broker-down", "broker-up", "shutdown":
		ids, err := parseIDs(args)
		for _, id := range ids {
			s.c.Brokers[id] = cmd != "broker-down"
			if cmd == "shutdown" {
				s.c.Shutdown[id] = true
			}
		}
		return "ok", true, err
	case "topic":
		return "ok", true, s.addTopic(args)
	case "drop-topic":
		delete(s.c.topics, args[0])
		return "ok", true, nil
	case "reassigning", "electing":
		m := map[string]map[string]bool{"reassigning": s.c.reassigning, "electing": s.c.electing}[cmd]
		m[args[0]] = args[1] == "on"
		return "ok", true, nil
	case "new-manager":
		s.m = New(Options{DisableDeletion: len(args) > 0 && args[0] == "disabled"})
		return "ok", true, nil
	case "status":
		var lines []string
		for _, st := range s.m.Statuses(s.c) {
			lines = append(lines, st.Topic+": "+st.String())
		}
		lines = append(lines, fmt.Sprintf("%+v", s.m.Metrics(s.c)))
		return strings.Join(lines, "\n"), true, nil
	}
	return "", false, nil
}

// addTopic parses "name 1,2 2,3": partition i gets the i-th replica list.
func (s *scenario) addTopic(args []string) error {
	var asg [][]int32
	for _, a := range args[1:] {
		ids, err := parseIDs(strings.Split(a, ","))
		if err != nil {
			return err
		}
		asg = append(asg, ids)
	}
	s.c.addTopic(args[0], asg...)
	return nil
}

func parseEvent(cmd string, args []string) (Event, error) {
	switch cmd {
	case "markers":
		return Markers{Topics: args}, nil
	case "brokers-started":
		ids, err := parseIDs(args)
		return BrokersStarted{Brokers: ids}, err
	case "replicas-offline":
		var rs []Replica
		for _, a := range args {
			r, err := parseReplica(a)
			if err != nil {
				return nil, err
			}
			rs = append(rs, r)
		}
		return ReplicasOffline{Replicas: rs}, nil
	case "response":
		return parseResponse(args)
	case "retry":
		n, err := strconv.Atoi(args[1])
		return Retry{Topic: args[0], Attempt: n}, err
	case "resume":
		return Resume{Topics: args}, nil
	case "removed":
		ev := TopicsRemoved{}
		for _, a := range args {
			name, why, bad := strings.Cut(a, ":")
			if !bad {
				ev.Removed = append(ev.Removed, name)
				continue
			}
			if ev.Failed == nil {
				ev.Failed = map[string]error{}
			}
			ev.Failed[name] = errors.New(why)
		}
		return ev, nil
	}
	return nil, fmt.Errorf("unknown command %q", cmd)
}

// parseResponse parses "<broker> t-0 t-1:ERROR ...": partitions without an
// error were deleted.
func parseResponse(args []string) (Event, error) {
	b, err := strconv.ParseInt(args[0], 10, 32)
	if err != nil {
		return nil, err
	}
	ev := StopReplicaResponse{Broker: int32(b)}
	for _, a := range args[1:] {
		tpText, code, isErr := strings.Cut(a, ":")
		tp, err := parsePartition(tpText)
		if err != nil {
			return nil, err
		}
		if !isErr {
			ev.Deleted = append(ev.Deleted, tp)
			continue
		}
		if ev.Failed == nil {
			ev.Failed = map[TopicPartition]error{}
		}
		ev.Failed[tp] = errors.New(code)
	}
	return ev, nil
}

func parseReplica(s string) (Replica, error) {
	tpText, b, ok := strings.Cut(s, "@")
	if !ok {
		return Replica{}, fmt.Errorf("replica %q: want topic-partition@broker", s)
	}
	tp, err := parsePartition(tpText)
	if err != nil {
		return Replica{}, err
	}
	id, err := strconv.ParseInt(b, 10, 32)
	return Replica{TopicPartition: tp, Broker: int32(id)}, err
}

func parsePartition(s string) (TopicPartition, error) {
	i := strings.LastIndexByte(s, '-')
	if i < 0 {
		return TopicPartition{}, fmt.Errorf("partition %q: want topic-partition", s)
	}
	p, err := strconv.ParseInt(s[i+1:], 10, 32)
	return TopicPartition{Topic: s[:i], Partition: int32(p)}, err
}

func parseIDs(args []string) ([]int32, error) {
	out := make([]int32, 0, len(args))
	for _, a := range args {
		v, err := strconv.ParseInt(a, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("broker id %q: %w", a, err)
		}
		out = append(out, int32(v))
	}
	return out, nil
}
