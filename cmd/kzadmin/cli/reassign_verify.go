package cli

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// waitReassignment polls until every move is complete, drawing progress on
// stderr. A partition that ends up on other replicas than planned (someone
// else re-targeted it) stops the wait with an error.
func (a *app) waitReassignment(ctx context.Context, b backend.Backend, moves []backend.Reassignment,
	timeout, interval time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	bar := newProgressBar(a.errOut, a.terminal(), len(moves), "partitions reassigned")
	defer bar.finish()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	topics := topicsOfMoves(moves)
	for {
		view, err := b.Describe(ctx, backend.DescribeRequest{Topics: topics})
		if err == nil {
			st := statuses(view, moves)
			bar.update(countDone(st))
			if countDone(st) == len(moves) {
				return nil
			}
			for _, s := range st {
				if s.Status == "mismatch" {
					return fmt.Errorf("partition %s-%d ended on replicas %s, not the planned %s", s.Topic, s.Partition,
						ids(s.Current), ids(s.Target))
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
		Long: `verify shows each partition of the plan as kafka-reassign-partitions --verify does.
When none is still in progress it removes the reassignment throttles, as Kafka's
tool does, whether --throttle set them or not: the leader, follower and
log-directory rates of every broker, and the throttled replicas of the plan's
topics (--preserve-throttles keeps them).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			moves, err := readPlan(planPath)
			if err != nil {
				return err
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				view, err := b.Describe(ctx, backend.DescribeRequest{Topics: topicsOfMoves(moves)})
				if err != nil {
					return err
				}
				st := statuses(view, moves)
				inProgress := slices.ContainsFunc(st, func(s partitionStatus) bool { return s.Status == "in_progress" })
				if a.jsonOutput() {
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
				if inProgress || preserveThrottles {
					return nil
				}
				fmt.Fprintln(a.out)
				return a.clearThrottles(ctx, b, moves)
			})
		},
	}
	cmd.Flags().StringVar(&planPath, "reassignment-json-file", "", "the plan that was executed")
	cmd.Flags().BoolVar(&preserveThrottles, "preserve-throttles", false, "leave the replication throttles in place")
	return cmd
}

func (a *app) reassignCancel() *cobra.Command {
	var planPath string
	cmd := &cobra.Command{
		Use:   "cancel --reassignment-json-file FILE",
		Short: "Cancel the reassignments in progress of the plan's partitions",
		Long: `Return each partition of the plan that is being reassigned to its original
replicas, as kafka-reassign-partitions --cancel does. With --zookeeper this
writes /admin/reassign_partitions with the original replicas, which Kafka's
controller turns into a cancel; it is refused while a legacy reassignment
request is still in that znode.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			moves, err := readPlan(planPath)
			if err != nil {
				return err
			}
			tps := make([]backend.TopicPartition, len(moves))
			for i, m := range moves {
				tps[i] = backend.TopicPartition{Topic: m.Topic, Partition: m.Partition}
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				res, err := b.CancelReassignments(ctx, tps, a.g.DryRun)
				if err != nil {
					return err
				}
				return a.result(res, res.Writes, func() {
					if len(res.Requested) == 0 {
						fmt.Fprintln(a.out, "None of the specified partition reassignments are active.")
						return
					}
					fmt.Fprintf(a.out, "Successfully cancelled partition reassignments for: %s\n", moveNames(res.Requested))
					if len(res.NotActive) > 0 {
						fmt.Fprintf(a.out, "Not active: %s\n", tpNames(res.NotActive))
					}
				})
			})
		},
	}
	cmd.Flags().StringVar(&planPath, "reassignment-json-file", "", "the plan whose reassignments to cancel")
	return cmd
}
