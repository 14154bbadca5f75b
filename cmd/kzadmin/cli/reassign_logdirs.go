package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/cmd/kzadmin/throttle"
)

// Moves between a broker's log directories: a plan's log_dirs entries
// other than "any", as kafka-reassign-partitions makes them. The brokers
// make these moves (AlterReplicaLogDirs) and know how far they have got
// (DescribeLogDirs), so they need --bootstrap-server.

// dirAdminFor returns b's log-directory moves when the plan has any, or
// refuses a backend without them.
func dirAdminFor(b backend.Backend, dirs []backend.ReplicaLogDir) (backend.LogDirAdmin, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	m, ok := b.(backend.LogDirAdmin)
	if !ok {
		return nil, usagef("--reassignment-json-file names log directories (%s to %s): moving replicas between log "+
			"directories is asked of the brokers, so it needs --bootstrap-server; with --zookeeper use \"any\"",
			dirs[0].Replica(), dirs[0].Dir)
	}
	return m, nil
}

// compareReplicas orders replicas as Kafka's tool prints them: by broker,
// then topic, then partition.
func compareReplicas(x, y backend.ReplicaLogDir) int {
	return cmp.Or(cmp.Compare(x.Broker, y.Broker), strings.Compare(x.Topic, y.Topic), cmp.Compare(x.Partition, y.Partition))
}

// dirMoveStatus is one replica's progress towards its target directory.
type dirMoveStatus struct {
	Broker  int32  `json:"broker"`
	Target  string `json:"target"`
	Current string `json:"current,omitempty"`
	Future  string `json:"future,omitempty"`
	// Status: complete; in_progress (being moved to the target);
	// elsewhere (being moved to another directory); not_moving (in
	// another directory, not being moved); missing (in no live directory
	// of the broker).
	Status string `json:"status"`
}

// done reports whether the move needs no more waiting, as Kafka's tool
// judges it: complete, or not being moved at all.
func (s dirMoveStatus) done() bool { return s.Status == "complete" || s.Status == "not_moving" }

// dirMoveStatusOf classifies where the broker keeps a replica against its
// target directory.
func dirMoveStatusOf(r backend.ReplicaLogDir, d backend.ReplicaDirs) dirMoveStatus {
	s := dirMoveStatus{Broker: r.Broker, Target: r.Dir, Current: d.Current, Future: d.Future}
	switch {
	case d.Current == "":
		s.Status = "missing"
	case d.Future == r.Dir:
		s.Status = "in_progress"
	case d.Future != "":
		s.Status = "elsewhere"
	case d.Current == r.Dir:
		s.Status = "complete"
	default:
		s.Status = "not_moving"
	}
	return s
}

// dirMoveLine is a status in the words of kafka-reassign-partitions
// --verify.
func dirMoveLine(r backend.ReplicaLogDir, s dirMoveStatus) string {
	tp := fmt.Sprintf("%s-%d", r.Topic, r.Partition)
	switch s.Status {
	case "complete":
		return fmt.Sprintf("Reassignment of replica %s completed successfully.", r.Replica())
	case "in_progress":
		return fmt.Sprintf("Reassignment of replica %s is still in progress.", r.Replica())
	case "elsewhere":
		return fmt.Sprintf("Partition %s on broker %d is being moved to log dir %s instead of %s.", tp, r.Broker, s.Future, r.Dir)
	case "not_moving":
		return fmt.Sprintf("Partition %s on broker %d is not being moved from log dir %s to %s.", tp, r.Broker, s.Current, r.Dir)
	default:
		return fmt.Sprintf("Partition %s is not found in any live log dir on broker %d. There is likely an offline log "+
			"directory on the broker.", tp, r.Broker)
	}
}

// dirMoveStatuses describes each move, in the plan's order.
func dirMoveStatuses(ctx context.Context, m backend.LogDirAdmin, dirs []backend.ReplicaLogDir) ([]dirMoveStatus, error) {
	where, err := m.DescribeReplicaLogDirs(ctx, dirs)
	if err != nil {
		return nil, err
	}
	out := make([]dirMoveStatus, len(dirs))
	for i, r := range dirs {
		out[i] = dirMoveStatusOf(r, where[i])
	}
	return out, nil
}

// dirMoveRetry is how soon a move the broker cannot start yet (the
// reassignment has not created the replica there) is asked again.
const dirMoveRetry = 100 * time.Millisecond

// startDirMoves asks the brokers to move each replica into its directory,
// asking again while a broker does not host the replica yet, until every
// move has started or timeout passes, as kafka-reassign-partitions
// --execute does. A dry run says what it would ask.
func (a *app) startDirMoves(ctx context.Context, m backend.LogDirAdmin, dirs []backend.ReplicaLogDir, timeout time.Duration) error {
	pending := slices.SortedFunc(slices.Values(dirs), compareReplicas)
	if a.g.DryRun {
		for _, r := range pending {
			fmt.Fprintf(a.noteOut(), "Dry run: would move replica %s to log directory %s\n", r.Replica(), r.Dir)
		}
		return nil
	}
	deadline := time.Now().Add(timeout)
	for {
		errs := m.AlterReplicaLogDirs(ctx, pending)
		var left []backend.ReplicaLogDir
		for i, r := range pending {
			switch err := errs[i]; {
			case err == nil:
				fmt.Fprintf(a.noteOut(), "Successfully started moving log directory to %s for replica %s-%d with broker %d\n",
					r.Dir, r.Topic, r.Partition, r.Broker)
			case errors.Is(err, backend.ErrReplicaNotAvailable):
				left = append(left, r)
			default:
				return fmt.Errorf("failed to alter dir for %s: %w", r.Replica(), err)
			}
		}
		if pending = left; len(pending) == 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			names := make([]string, len(pending))
			for i, r := range pending {
				names[i] = r.Replica()
			}
			return fmt.Errorf("timed out before log directory move%s could be started for: %s",
				pluralS(len(pending)), strings.Join(names, ","))
		}
		t := time.NewTimer(dirMoveRetry)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// setLogDirThrottle caps the brokers' moves between their log directories
// at rate B/s, as --replica-alter-log-dirs-throttle does in Kafka's tool:
// on each broker with a move.
func (a *app) setLogDirThrottle(ctx context.Context, b backend.Backend, dirs []backend.ReplicaLogDir, rate int64) error {
	var brokers []int32
	for _, r := range dirs {
		brokers = append(brokers, r.Broker)
	}
	slices.Sort(brokers)
	for _, id := range slices.Compact(brokers) {
		if err := a.alterForThrottle(ctx, b, backend.AlterConfigsRequest{EntityType: "brokers", Name: strconv.Itoa(int(id)),
			Set: map[string]string{throttle.AlterLogDirsRateKey: strconv.FormatInt(rate, 10)}, DryRun: a.g.DryRun}); err != nil {
			return err
		}
	}
	if !a.g.DryRun {
		fmt.Fprintf(a.noteOut(), "The replica-alter-dir throttle limit was set to %d B/s\n", rate)
	}
	return nil
}
