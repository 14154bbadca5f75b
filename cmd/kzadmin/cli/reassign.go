package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/placement"
)

func (a *app) reassignCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reassign",
		Short: "Generate, execute, verify, cancel and list partition reassignments (kafka-reassign-partitions.sh)",
	}
	cmd.AddCommand(a.reassignGenerate(), a.reassignExecute(), a.reassignVerify(), a.reassignCancel(), a.reassignList())
	return group(cmd)
}

func (a *app) reassignGenerate() *cobra.Command {
	var topicsFile, brokerList string
	var disableRack bool
	cmd := &cobra.Command{
		Use:   "generate --topics-to-move-json-file FILE --broker-list 1,2,3",
		Short: "Propose moving topics onto a set of brokers, moving as few replicas as it can",
		Long: `Print the current assignment of the topics and a proposed one on the
given brokers. Unlike kafka-reassign-partitions --generate, which re-places
every partition from scratch, the proposal keeps replicas where they are and
moves as few as it can to reach balance, rack spread and balanced leaders.
Nothing is written: save the proposal and run 'reassign execute'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			topics, err := readTopicsToMove(topicsFile)
			if err != nil {
				return err
			}
			targets, err := parseBrokerList("--broker-list", brokerList)
			if err != nil {
				return err
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				view, err := b.Describe(ctx, backend.DescribeRequest{Topics: topics})
				if err != nil {
					return err
				}
				return a.generate(view, topics, targets, disableRack)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&topicsFile, "topics-to-move-json-file", "", `file: {"topics":[{"topic":"foo"}],"version":1}`)
	f.StringVar(&brokerList, "broker-list", "", "the brokers to move the topics onto: 1,2,3")
	f.BoolVar(&disableRack, "disable-rack-aware", false, "ignore racks")
	return cmd
}

func (a *app) generate(view *backend.ClusterView, names []string, targets []int32, disableRack bool) error {
	var brokers []placement.Broker
	for _, id := range targets {
		i := slices.IndexFunc(view.Brokers, func(b backend.Broker) bool { return b.ID == id })
		if i < 0 {
			return fmt.Errorf("broker %d in --broker-list is not registered (live brokers: %s)", id, ids(brokerIDs(view)))
		}
		brokers = append(brokers, placement.Broker{ID: id, Rack: view.Brokers[i].Rack, HasRack: view.Brokers[i].HasRack})
	}
	mode := placement.RackEnforced
	if disableRack {
		mode = placement.RackDisabled
	}
	brokers, err := placement.ApplyRackMode(brokers, mode)
	if err != nil {
		return err
	}
	var current []backend.Reassignment
	var ptopics []placement.Topic
	for _, name := range names {
		i := slices.IndexFunc(view.Topics, func(t backend.Topic) bool { return t.Name == name })
		if i < 0 {
			return fmt.Errorf("topic %s does not exist", name)
		}
		t := view.Topics[i]
		if t.Err != nil {
			return fmt.Errorf("topic %s cannot be read: %w", name, t.Err)
		}
		pt := placement.Topic{Name: name}
		for _, p := range t.Partitions {
			pt.Partitions = append(pt.Partitions, p.Replicas)
			current = append(current, backend.Reassignment{Topic: name, Partition: p.ID, Replicas: p.Replicas})
		}
		ptopics = append(ptopics, pt)
	}
	plan, err := placement.PlanReassignment(ptopics, brokers, placement.Limits{})
	if err != nil {
		return err
	}
	var proposed []backend.Reassignment
	for ti, t := range plan.Topics {
		for pi, replicas := range t.Partitions {
			proposed = append(proposed, backend.Reassignment{Topic: t.Name, Partition: view.Topics[indexOf(view, names[ti])].Partitions[pi].ID, Replicas: replicas})
		}
	}
	if a.jsonOutput() {
		return a.printJSON(map[string]any{"current": jsonPlan(current), "proposed": jsonPlan(proposed),
			"replica_moves": plan.Moves, "leader_changes": plan.LeaderChanges})
	}
	fmt.Fprintf(a.out, "Current partition replica assignment\n%s\n\nProposed partition reassignment configuration\n%s\n",
		planJSON(current), planJSON(proposed))
	fmt.Fprintf(a.errOut, "The proposal moves %s and changes %s.\n", plural(plan.Moves, "replica", "replicas"),
		plural(plan.LeaderChanges, "preferred leader", "preferred leaders"))
	return nil
}

func indexOf(view *backend.ClusterView, name string) int {
	return slices.IndexFunc(view.Topics, func(t backend.Topic) bool { return t.Name == name })
}

func brokerIDs(view *backend.ClusterView) []int32 {
	out := make([]int32, len(view.Brokers))
	for i, b := range view.Brokers {
		out[i] = b.ID
	}
	return out
}

// jsonPlan is a plan as a JSON value (for -o json).
func jsonPlan(moves []backend.Reassignment) planFile {
	p := planFile{Version: 1, Partitions: []planEntry{}}
	for _, m := range moves {
		p.Partitions = append(p.Partitions, planEntry{Topic: m.Topic, Partition: m.Partition, Replicas: m.Replicas})
	}
	return p
}

func (a *app) reassignExecute() *cobra.Command {
	var planPath string
	var wait bool
	var throttleRate, dirThrottleRate int64
	var preserveThrottles, additional bool
	var waitTimeout, interval time.Duration
	cmd := &cobra.Command{
		Use:   "execute --reassignment-json-file FILE [--wait]",
		Short: "Start a reassignment (/admin/reassign_partitions, or AlterPartitionReassignments over the wire)",
		Long: `execute starts the plan's reassignments, as kafka-reassign-partitions --execute
does. A log_dirs entry naming a directory (not "any") moves that replica into
that log directory of its broker; the brokers make those moves, so they need
--bootstrap-server, and a move onto a broker that does not host the replica
yet is asked again until the reassignment has created it there (until
--timeout).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			moves, dirs, err := readPlan(planPath)
			if err != nil {
				return err
			}
			b, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			defer b.Close()
			mover, err := dirAdminFor(b, dirs)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), a.g.Timeout)
			if !additional {
				if err := refuseWhileReassigning(ctx, b); err != nil {
					cancel()
					return fail(err)
				}
			}
			if err := a.throttleBeforeStart(ctx, b, moves, dirs, throttleRate, dirThrottleRate); err != nil {
				cancel()
				return fail(err)
			}
			res, err := b.StartReassignment(ctx, moves, a.g.DryRun)
			cancel()
			if err != nil {
				return fail(err)
			}
			err = a.result(res, res.Writes, func() {
				fmt.Fprintf(a.out, "Current partition replica assignment\n\n%s\n\nSave this to use as the "+
					"--reassignment-json-file option during rollback\nSuccessfully started partition reassignments for %s\n",
					planJSON(res.Current), moveNames(moves))
			})
			if err != nil {
				return err
			}
			if mover != nil {
				ctx, cancel := context.WithTimeout(cmd.Context(), a.g.Timeout)
				err := a.startDirMoves(ctx, mover, dirs, a.g.Timeout)
				cancel()
				if err != nil {
					return fail(err)
				}
			}
			if !wait || a.g.DryRun {
				return nil
			}
			if err := a.waitReassignment(cmd.Context(), b, mover, moves, dirs, waitTimeout, interval); err != nil {
				return fail(err)
			}
			if (throttleRate < 0 && dirThrottleRate < 0) || preserveThrottles {
				return nil
			}
			// Done: take the throttles off, as --verify would.
			ctx, cancel = context.WithTimeout(cmd.Context(), a.g.Timeout)
			defer cancel()
			return fail(a.clearThrottles(ctx, b, moves))
		},
	}
	f := cmd.Flags()
	f.StringVar(&planPath, "reassignment-json-file", "", "the plan (kafka-reassign-partitions' JSON format)")
	f.BoolVar(&wait, "wait", false, "wait until the reassignment completes, with a progress bar on stderr")
	f.DurationVar(&waitTimeout, "wait-timeout", 30*time.Minute, "give up waiting after this long")
	f.DurationVar(&interval, "poll-interval", time.Second, "how often --wait looks at the cluster")
	f.Int64Var(&throttleRate, "throttle", -1, "throttle the moves' replication at this rate in B/s, on their topics' moving "+
		"replicas and their brokers, until --verify finds the plan complete (or --wait ends)")
	f.Int64Var(&dirThrottleRate, "replica-alter-log-dirs-throttle", -1, "throttle the moves between log directories "+
		"at this rate in B/s on their brokers, until --verify finds the plan complete (or --wait ends)")
	f.BoolVar(&preserveThrottles, "preserve-throttles", false, "with --wait: leave the throttles in place when the plan completes")
	f.BoolVar(&additional, "additional", false, "start the plan although other reassignments are in progress "+
		"(or resubmit one in progress, to change its throttle)")
	return cmd
}

// refuseWhileReassigning refuses to start a plan while any partition of
// the cluster is being reassigned, as kafka-reassign-partitions --execute
// does without --additional: the new plan would be mixed up with moves
// someone else started. A request in /admin/reassign_partitions that the
// controller has not begun counts too.
func refuseWhileReassigning(ctx context.Context, b backend.Backend) error {
	ongoing, pending, err := ongoingReassignments(ctx, b)
	if err != nil {
		return fmt.Errorf("list the reassignments in progress: %w", err)
	}
	tps := slices.Clone(pending)
	for _, o := range ongoing {
		if !slices.Contains(tps, o.TopicPartition) {
			tps = append(tps, o.TopicPartition)
		}
	}
	if len(tps) == 0 {
		return nil
	}
	slices.SortFunc(tps, compareTopicPartitions)
	names := make([]string, 0, 5)
	for _, tp := range tps[:min(len(tps), 5)] {
		names = append(names, tp.String())
	}
	if len(tps) > 5 {
		names = append(names, "...")
	}
	return fmt.Errorf("cannot execute because there is an existing partition assignment (%s in progress: %s). "+
		"Use --additional to override this and create a new partition assignment in addition to the existing one. "+
		"The --additional flag can also be used to change the throttle by resubmitting the current reassignment",
		plural(len(tps), "partition", "partitions"), strings.Join(names, ", "))
}

func compareTopicPartitions(x, y backend.TopicPartition) int {
	return cmp.Or(strings.Compare(x.Topic, y.Topic), cmp.Compare(x.Partition, y.Partition))
}

// ongoingReassignments lists the reassignments in progress, sorted, and
// (ZooKeeper only) the partitions of /admin/reassign_partitions the
// controller has not begun.
func ongoingReassignments(ctx context.Context, b backend.Backend) ([]backend.OngoingReassignment, []backend.TopicPartition, error) {
	if l, ok := b.(backend.ReassignmentLister); ok {
		ongoing, err := l.Reassigning(ctx)
		return ongoing, nil, err
	}
	view, err := b.Describe(ctx, backend.DescribeRequest{All: true})
	if err != nil {
		return nil, nil, err
	}
	var ongoing []backend.OngoingReassignment
	for _, t := range view.Topics {
		for _, p := range t.Partitions {
			if len(p.Adding) > 0 || len(p.Removing) > 0 {
				ongoing = append(ongoing, backend.OngoingReassignment{TopicPartition: backend.TopicPartition{Topic: t.Name, Partition: p.ID},
					Replicas: p.Replicas, Adding: p.Adding, Removing: p.Removing})
			}
		}
	}
	slices.SortFunc(ongoing, func(x, y backend.OngoingReassignment) int {
		return compareTopicPartitions(x.TopicPartition, y.TopicPartition)
	})
	// The controller keeps a request in the znode until its moves are
	// done: only those with no move yet are not begun.
	var pending []backend.TopicPartition
	for _, tp := range slices.SortedFunc(maps.Keys(view.Pending), compareTopicPartitions) {
		if !slices.ContainsFunc(ongoing, func(o backend.OngoingReassignment) bool { return o.TopicPartition == tp }) {
			pending = append(pending, tp)
		}
	}
	return ongoing, pending, nil
}

func (a *app) reassignList() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the reassignments in progress (kafka-reassign-partitions --list)",
		Long: `list prints every partition of the cluster being reassigned, with its replicas
and those being added and removed, as kafka-reassign-partitions --list does.
With --zookeeper, partitions requested in /admin/reassign_partitions that the
controller has not begun are named after them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				ongoing, pending, err := ongoingReassignments(ctx, b)
				if err != nil {
					return err
				}
				if a.jsonOutput() {
					type entry struct {
						Topic     string  `json:"topic"`
						Partition int32   `json:"partition"`
						Replicas  []int32 `json:"replicas"`
						Adding    []int32 `json:"adding_replicas"`
						Removing  []int32 `json:"removing_replicas"`
					}
					out := struct {
						Reassignments []entry                  `json:"reassignments"`
						NotBegun      []backend.TopicPartition `json:"requested_not_begun,omitempty"`
					}{Reassignments: []entry{}, NotBegun: pending}
					for _, o := range ongoing {
						out.Reassignments = append(out.Reassignments, entry{o.Topic, o.Partition, o.Replicas, nonNil(o.Adding), nonNil(o.Removing)})
					}
					return a.printJSON(out)
				}
				if len(ongoing) == 0 {
					fmt.Fprintln(a.out, "No partition reassignments found.")
				} else {
					fmt.Fprintln(a.out, "Current partition reassignments:")
					for _, o := range ongoing {
						line := fmt.Sprintf("%s: replicas: %s.", o.TopicPartition, joinIDs(o.Replicas))
						if len(o.Adding) > 0 {
							line += fmt.Sprintf(" adding: %s.", joinIDs(o.Adding))
						}
						if len(o.Removing) > 0 {
							line += fmt.Sprintf(" removing: %s.", joinIDs(o.Removing))
						}
						fmt.Fprintln(a.out, line)
					}
				}
				if len(pending) > 0 {
					fmt.Fprintf(a.out, "Requested in /admin/reassign_partitions, not begun by the controller: %s\n", tpNames(pending))
				}
				return nil
			})
		},
	}
}

// throttleBeforeStart sets the throttles --throttle and
// --replica-alter-log-dirs-throttle ask for (negative: none) before the
// moves start, as Kafka's tool does. Moves that cannot start are refused
// first; a backend that cannot dry-run (the wire one) finds out after, as
// Kafka's tool does, and --verify then clears the throttles.
func (a *app) throttleBeforeStart(ctx context.Context, b backend.Backend, moves []backend.Reassignment,
	dirs []backend.ReplicaLogDir, rate, dirRate int64) error {
	if rate < 0 && dirRate < 0 {
		return nil
	}
	if !a.g.DryRun {
		var noDry interface{ UsageError() bool }
		if _, err := b.StartReassignment(ctx, moves, true); err != nil && !errors.As(err, &noDry) {
			return err
		}
	}
	fmt.Fprintln(a.noteOut(), "Warning: You must run --verify periodically, until the reassignment completes, "+
		"to ensure the throttle is removed.")
	if rate >= 0 {
		if err := a.setThrottles(ctx, b, moves, rate); err != nil {
			return err
		}
	}
	if dirRate >= 0 {
		return a.setLogDirThrottle(ctx, b, dirs, dirRate)
	}
	return nil
}

// partitionStatus is one partition's progress towards its target.
type partitionStatus struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Status    string  `json:"status"` // complete, in_progress, mismatch, unknown
	Current   []int32 `json:"current"`
	Target    []int32 `json:"target"`
	// LogDirs are the partition's moves between log directories.
	LogDirs []dirMoveStatus `json:"log_dirs,omitempty"`
}

// statuses compares the cluster with the plan as --verify does: in
// progress while requested or being moved; complete when the replicas are
// exactly the target.
func statuses(view *backend.ClusterView, moves []backend.Reassignment) []partitionStatus {
	out := make([]partitionStatus, len(moves))
	for i, m := range moves {
		s := partitionStatus{Topic: m.Topic, Partition: m.Partition, Target: m.Replicas, Status: "unknown"}
		tp := backend.TopicPartition{Topic: m.Topic, Partition: m.Partition}
		if ti := indexOf(view, m.Topic); ti >= 0 {
			for _, p := range view.Topics[ti].Partitions {
				if p.ID != m.Partition {
					continue
				}
				s.Current = p.Replicas
				_, pending := view.Pending[tp]
				switch {
				case pending || len(p.Adding) > 0 || len(p.Removing) > 0:
					s.Status = "in_progress"
				case slices.Equal(p.Replicas, m.Replicas):
					s.Status = "complete"
				default:
					s.Status = "mismatch"
				}
			}
		}
		out[i] = s
	}
	return out
}

func countDone(st []partitionStatus) int {
	n := 0
	for _, s := range st {
		if s.Status == "complete" {
			n++
		}
	}
	return n
}
