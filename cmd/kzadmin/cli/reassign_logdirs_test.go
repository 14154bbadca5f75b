package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

func TestReadPlanLogDirs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"partitions":[`+
		`{"topic":"a","partition":0,"replicas":[1,2],"log_dirs":["any","/d2"]},`+
		`{"topic":"b","partition":3,"replicas":[3]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	moves, dirs, err := readPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []backend.ReplicaLogDir{{Topic: "a", Partition: 0, Broker: 2, Dir: "/d2"}}
	if len(moves) != 2 || len(dirs) != 1 || dirs[0] != want[0] || dirs[0].Replica() != "a-0-2" {
		t.Fatalf("moves %+v, dirs %+v", moves, dirs)
	}
	if err := os.WriteFile(path, []byte(`{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1],"log_dirs":[""]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readPlan(path); err == nil || !strings.Contains(err.Error(), "log_dirs entry 0 is empty") {
		t.Fatalf("empty directory: %v", err)
	}
}

// TestDirMoveStatus: every state of Kafka's tool, in its words.
func TestDirMoveStatus(t *testing.T) {
	r := backend.ReplicaLogDir{Topic: "t", Partition: 1, Broker: 2, Dir: "/b"}
	for _, tc := range []struct {
		dirs   backend.ReplicaDirs
		status string
		done   bool
		line   string
	}{
		{backend.ReplicaDirs{Current: "/b"}, "complete", true, "Reassignment of replica t-1-2 completed successfully."},
		{backend.ReplicaDirs{Current: "/a", Future: "/b"}, "in_progress", false, "Reassignment of replica t-1-2 is still in progress."},
		{backend.ReplicaDirs{Current: "/a", Future: "/c"}, "elsewhere", false,
			"Partition t-1 on broker 2 is being moved to log dir /c instead of /b."},
		{backend.ReplicaDirs{Current: "/a"}, "not_moving", true, "Partition t-1 on broker 2 is not being moved from log dir /a to /b."},
		{backend.ReplicaDirs{}, "missing", false,
			"Partition t-1 is not found in any live log dir on broker 2. There is likely an offline log directory on the broker."},
		{backend.ReplicaDirs{Future: "/b"}, "missing", false,
			"Partition t-1 is not found in any live log dir on broker 2. There is likely an offline log directory on the broker."},
	} {
		s := dirMoveStatusOf(r, tc.dirs)
		if s.Status != tc.status || s.done() != tc.done || dirMoveLine(r, s) != tc.line {
			t.Errorf("%+v: %+v done %v, %q", tc.dirs, s, s.done(), dirMoveLine(r, s))
		}
	}
}

// fakeMover answers AlterReplicaLogDirs from a script: each replica's
// outcomes in turn (the last repeats).
type fakeMover struct {
	outcomes map[string][]error
	asked    []string
}

func (f *fakeMover) AlterReplicaLogDirs(_ context.Context, moves []backend.ReplicaLogDir) []error {
	out := make([]error, len(moves))
	for i, m := range moves {
		f.asked = append(f.asked, m.Replica())
		seq := f.outcomes[m.Replica()]
		out[i] = seq[0]
		if len(seq) > 1 {
			f.outcomes[m.Replica()] = seq[1:]
		}
	}
	return out
}

func (f *fakeMover) DescribeLogDirs(context.Context, []int32) ([]backend.BrokerLogDirs, error) {
	return nil, errors.New("not used")
}

func (f *fakeMover) DescribeReplicaLogDirs(context.Context, []backend.ReplicaLogDir) ([]backend.ReplicaDirs, error) {
	return nil, errors.New("not used")
}

// TestStartDirMoves: a broker that does not host a replica yet is asked
// again until it does; a move it refuses otherwise fails the command;
// moves that never start time out, named in Kafka's order (broker, topic,
// partition).
func TestStartDirMoves(t *testing.T) {
	notYet := backend.ErrReplicaNotAvailable
	a := func() (*app, *bytes.Buffer) {
		var out bytes.Buffer
		return &app{out: &out, errOut: &out}, &out
	}
	moves := []backend.ReplicaLogDir{{Topic: "b", Partition: 0, Broker: 2, Dir: "/x"}, {Topic: "a", Partition: 1, Broker: 2, Dir: "/y"},
		{Topic: "a", Partition: 0, Broker: 1, Dir: "/z"}}

	app, out := a()
	m := &fakeMover{outcomes: map[string][]error{"b-0-2": {notYet, notYet, nil}, "a-1-2": {nil}, "a-0-1": {nil}}}
	if err := app.startDirMoves(context.Background(), m, moves, time.Minute); err != nil {
		t.Fatal(err)
	}
	want := "Successfully started moving log directory to /z for replica a-0 with broker 1\n" +
		"Successfully started moving log directory to /y for replica a-1 with broker 2\n" +
		"Successfully started moving log directory to /x for replica b-0 with broker 2\n"
	if out.String() != want || strings.Join(m.asked, " ") != "a-0-1 a-1-2 b-0-2 b-0-2 b-0-2" {
		t.Fatalf("output\n%s\nasked %v", out, m.asked)
	}

	app, _ = a()
	m = &fakeMover{outcomes: map[string][]error{"b-0-2": {errors.New("log dir /x not found")}, "a-1-2": {nil}, "a-0-1": {nil}}}
	if err := app.startDirMoves(context.Background(), m, moves, time.Minute); err == nil ||
		err.Error() != "failed to alter dir for b-0-2: log dir /x not found" {
		t.Fatalf("refused move: %v", err)
	}

	app, _ = a()
	m = &fakeMover{outcomes: map[string][]error{"b-0-2": {notYet}, "a-1-2": {notYet}, "a-0-1": {nil}}}
	if err := app.startDirMoves(context.Background(), m, moves, 250*time.Millisecond); err == nil ||
		err.Error() != "timed out before log directory moves could be started for: a-1-2,b-0-2" {
		t.Fatalf("timeout: %v", err)
	}

	app, out = a()
	app.g.DryRun = true
	m = &fakeMover{}
	if err := app.startDirMoves(context.Background(), m, moves[:1], time.Minute); err != nil || len(m.asked) > 0 ||
		out.String() != "Dry run: would move replica b-0-2 to log directory /x\n" {
		t.Fatalf("dry run: %v, asked %v, %q", err, m.asked, out)
	}
}

// TestAttachDirStatuses: under -o json each move between log directories
// is listed on its partition's status.
func TestAttachDirStatuses(t *testing.T) {
	st := []partitionStatus{{Topic: "a", Partition: 0}, {Topic: "a", Partition: 1}}
	dirs := []backend.ReplicaLogDir{{Topic: "a", Partition: 1, Broker: 2, Dir: "/x"}, {Topic: "a", Partition: 1, Broker: 3, Dir: "/y"}}
	dirSt := []dirMoveStatus{{Broker: 2, Target: "/x", Status: "complete"}, {Broker: 3, Target: "/y", Status: "missing"}}
	attachDirStatuses(st, dirs, dirSt)
	if len(st[0].LogDirs) != 0 || len(st[1].LogDirs) != 2 || st[1].LogDirs[1].Broker != 3 {
		t.Fatalf("%+v", st)
	}
}
