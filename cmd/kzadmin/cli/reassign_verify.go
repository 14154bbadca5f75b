package cli

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// waitReassignment polls until every move is complete (and every move
// between log directories, through mover), drawing progress on stderr. A
// partition that ends up on other replicas than planned (someone else
// re-targeted it) stops the wait with an error.
func (a *app) waitReassignment(ctx context.Context, b backend.Backend, mover backend.LogDirAdmin, moves []backend.Reassignment,
	dirs []backend.ReplicaLogDir, timeout, interval time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	what := "partitions reassigned"
	if len(dirs) > 0 {
		what = "partitions reassigned and replicas moved between log directories"
	}
	bar := newProgressBar(a.errOut, a.terminal(), len(moves)+len(dirs), what)
	defer bar.finish()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	topics := topicsOfMoves(moves)
	for {
		view, err := b.Describe(ctx, backend.DescribeRequest{Topics: topics})
		var dirSt []dirMoveStatus
		if err == nil && mover != nil {
			dirSt, err = dirMoveStatuses(ctx, mover, dirs)
		}
		if err == nil {
			st := statuses(view, moves)
			done := countDone(st)
			for _, d := range dirSt {
				if d.Status == "complete" {
					done++
				}
			}
			bar.update(done)
			if done == len(moves)+len(dirs) {
				return nil
			}
			for _, s := range st {
				if s.Status == "mismatch" {
					return fmt.Errorf("partition %s-%d ended on replicas %s, not the planned %s", s.Topic, s.Partition,
						ids(s.Current), ids(s.Target))
				}
			}
			for i, d := range dirSt {
				if d.Status == "not_moving" || d.Status == "elsewhere" {
					return fmt.Errorf("%s", dirMoveLine(dirs[i], d))
				}
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("reassignment not complete after %v: %w", timeout, ctx.Err())
		}
	}
}

func topicsOfMoves(moves []backend.Reassignment) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range moves {
		if !seen[m.Topic] {
			seen[m.Topic] = true
			out = append(out, m.Topic)
		}
	}
	return out
}

func (a *app) reassignVerify() *cobra.Command {
	var planPath string
	var preserveThrottles bool
	cmd := &cobra.Command{
		Use:   "verify --reassignment-json-file FILE",
		Short: "Show how far a reassignment has got; once it is complete, remove the replication throttles",
		Long: `verify shows each partition of the plan, and each move between log directories,
as kafka-reassign-partitions --verify does. When none is still in progress it
removes the reassignment throttles, as Kafka's tool does, whether --throttle set
them or not: the leader, follower and log-directory rates of every broker, and
the throttled replicas of the plan's topics (--preserve-throttles keeps them).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			moves, dirs, err := readPlan(planPath)
			if err != nil {
				return err
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				mover, err := dirAdminFor(b, dirs)
				if err != nil {
					return err
				}
				view, err := b.Describe(ctx, backend.DescribeRequest{Topics: topicsOfMoves(moves)})
				if err != nil {
					return err
				}
				st := statuses(view, moves)
				var dirSt []dirMoveStatus
				if mover != nil {
					if dirSt, err = dirMoveStatuses(ctx, mover, dirs); err != nil {
						return err
					}
				}
				inProgress := slices.ContainsFunc(st, func(s partitionStatus) bool { return s.Status == "in_progress" }) ||
					slices.ContainsFunc(dirSt, func(s dirMoveStatus) bool { return !s.done() })
				if a.jsonOutput() {
					attachDirStatuses(st, dirs, dirSt)
					if err := a.printJSON(st); err != nil || inProgress || preserveThrottles {
						return err
					}
					return a.clearThrottles(ctx, b, moves)
				}
				fmt.Fprintln(a.out, "Status of partition reassignment:")
				for _, s := range st {
					tp := fmt.Sprintf("%s-%d", s.Topic, s.Partition)
					switch s.Status {
					case "complete":
						fmt.Fprintf(a.out, "Reassignment of partition %s is completed.\n", tp)
					case "in_progress":
						fmt.Fprintf(a.out, "Reassignment of partition %s is still in progress.\n", tp)
					case "mismatch":
						fmt.Fprintf(a.out, "There is no active reassignment of partition %s, but replica set is %s rather than %s.\n",
							tp, ids(s.Current), ids(s.Target))
					default:
						fmt.Fprintf(a.out, "Partition %s does not exist.\n", tp)
					}
				}
				// The log-directory moves follow, by broker, topic and
				// partition; without any, Kafka's tool leaves a blank line.
				order := make([]int, len(dirs))
				for i := range order {
					order[i] = i
				}
				slices.SortFunc(order, func(x, y int) int { return compareReplicas(dirs[x], dirs[y]) })
				for _, i := range order {
					fmt.Fprintln(a.out, dirMoveLine(dirs[i], dirSt[i]))
				}
				if len(dirs) == 0 {
					fmt.Fprintln(a.out)
				}
				if inProgress || preserveThrottles {
					return nil
				}
				return a.clearThrottles(ctx, b, moves)
			})
		},
	}
	cmd.Flags().StringVar(&planPath, "reassignment-json-file", "", "the plan that was executed")
	cmd.Flags().BoolVar(&preserveThrottles, "preserve-throttles", false, "leave the replication throttles in place")
	return cmd
}

// attachDirStatuses puts each move between log directories on its
// partition's status (for -o json).
func attachDirStatuses(st []partitionStatus, dirs []backend.ReplicaLogDir, dirSt []dirMoveStatus) {
	for i, r := range dirs {
		for j := range st {
			if st[j].Topic == r.Topic && st[j].Partition == r.Partition {
				st[j].LogDirs = append(st[j].LogDirs, dirSt[i])
				break
			}
		}
	}
}

func (a *app) reassignCancel() *cobra.Command {
	var planPath string
	var preserveThrottles bool
	cmd := &cobra.Command{
		Use:   "cancel --reassignment-json-file FILE",
		Short: "Cancel the reassignments in progress of the plan's partitions",
		Long: `Return each partition of the plan that is being reassigned to its original
replicas, as kafka-reassign-partitions --cancel does. With --zookeeper this
writes /admin/reassign_partitions with the original replicas, which Kafka's
controller turns into a cancel; it is refused while a legacy reassignment
request is still in that znode. A move between log directories of the plan
that is in progress is stopped (the replica stays where it is; this needs
--bootstrap-server). Then, as Kafka's tool does, the reassignment throttles
are removed (--preserve-throttles keeps them).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			moves, dirs, err := readPlan(planPath)
			if err != nil {
				return err
			}
			tps := make([]backend.TopicPartition, len(moves))
			for i, m := range moves {
				tps[i] = backend.TopicPartition{Topic: m.Topic, Partition: m.Partition}
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				mover, err := dirAdminFor(b, dirs)
				if err != nil {
					return err
				}
				res, err := b.CancelReassignments(ctx, tps, a.g.DryRun)
				if err != nil {
					return err
				}
				err = a.result(res, res.Writes, func() {
					if len(res.Requested) == 0 {
						fmt.Fprintln(a.out, "None of the specified partition reassignments are active.")
						return
					}
					fmt.Fprintf(a.out, "Successfully cancelled partition reassignments for: %s\n", moveNames(res.Requested))
					if len(res.NotActive) > 0 {
						fmt.Fprintf(a.out, "Not active: %s\n", tpNames(res.NotActive))
					}
				})
				if err != nil {
					return err
				}
				if mover != nil {
					if err := a.cancelDirMoves(ctx, mover, dirs); err != nil {
						return err
					}
				}
				if preserveThrottles {
					return nil
				}
				if err := a.clearThrottles(ctx, b, moves); err != nil {
					return fmt.Errorf("the reassignments were cancelled, but the throttles were not removed "+
						"(run cancel or verify again, or pass --preserve-throttles): %w", err)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&planPath, "reassignment-json-file", "", "the plan whose reassignments to cancel")
	cmd.Flags().BoolVar(&preserveThrottles, "preserve-throttles", false, "leave the replication throttles in place")
	return cmd
}

// cancelDirMoves stops the plan's moves between log directories that are
// in progress, by asking each broker to keep the replica in its current
// directory, as kafka-reassign-partitions --cancel does.
func (a *app) cancelDirMoves(ctx context.Context, m backend.LogDirAdmin, dirs []backend.ReplicaLogDir) error {
	st, err := dirMoveStatuses(ctx, m, dirs)
	if err != nil {
		return err
	}
	var back []backend.ReplicaLogDir
	for i, r := range dirs {
		if st[i].Future != "" && st[i].Current != "" {
			r.Dir = st[i].Current
			back = append(back, r)
		}
	}
	if len(back) == 0 {
		fmt.Fprintln(a.noteOut(), "None of the specified partition moves are active.")
		return nil
	}
	deadline, ok := ctx.Deadline()
	timeout := a.g.Timeout
	if ok {
		timeout = time.Until(deadline)
	}
	return a.startDirMoves(ctx, m, back, timeout)
}
