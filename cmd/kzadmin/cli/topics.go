package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

func (a *app) topicsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "topics",
		Short: "Create, list, describe, alter and delete topics (kafka-topics.sh)",
	}
	cmd.AddCommand(a.topicsCreate(), a.topicsList(), a.topicsDescribe(), a.topicsAlter(), a.topicsDelete())
	return group(cmd)
}

// withBackend opens the backend, runs f, and closes it.
func (a *app) withBackend(cmd *cobra.Command, f func(ctx context.Context, b backend.Backend) error) error {
	b, err := a.open(cmd.Context())
	if err != nil {
		return err
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(cmd.Context(), a.g.Timeout)
	defer cancel()
	return fail(f(ctx, b))
}

func (a *app) topicsCreate() *cobra.Command {
	var topic, assignment string
	var partitions int32
	var rf int16
	var configs []string
	var ifNotExists, disableRack bool
	cmd := &cobra.Command{
		Use:   "create --topic NAME (--partitions N --replication-factor N | --replica-assignment 0:1,1:2)",
		Short: "Create a topic",
		Example: `  kzadmin topics create --zookeeper zk:2181/kafka --topic orders --partitions 6 --replication-factor 3 \
    --config retention.ms=86400000 --config cleanup.policy=compact
  kzadmin topics create --zookeeper zk:2181 --topic pinned --replica-assignment 1:2,2:3,3:1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req := backend.CreateTopicRequest{Topic: topic, Partitions: partitions, ReplicationFactor: rf,
				DisableRackAware: disableRack, DryRun: a.g.DryRun}
			if topic == "" {
				return usagef("--topic is required")
			}
			if assignment != "" {
				if cmd.Flags().Changed("partitions") || cmd.Flags().Changed("replication-factor") {
					return usagef("Option --replica-assignment can't be used with --partitions or --replication-factor")
				}
				var err error
				if req.Assignment, err = parseReplicaAssignment(assignment); err != nil {
					return err
				}
				req.Partitions, req.ReplicationFactor = 0, 0
			}
			var err error
			if req.Configs, err = parseConfigPairs(configs); err != nil {
				return err
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				res, err := b.CreateTopic(ctx, req)
				var be *backend.Error
				if ifNotExists && errors.As(err, &be) && be.Reason == "TopicExists" {
					return nil
				}
				if err != nil {
					return err
				}
				return a.result(res, res.Writes, func() { fmt.Fprintf(a.out, "Created topic %s.\n", topic) })
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&topic, "topic", "", "the topic to create")
	f.Int32Var(&partitions, "partitions", -1, "number of partitions (default: num.partitions)")
	f.Int16Var(&rf, "replication-factor", -1, "replication factor (default: default.replication.factor)")
	f.StringVar(&assignment, "replica-assignment", "", "explicit replicas: 0:1,1:2 puts partition 0 on brokers 0 and 1, partition 1 on 1 and 2")
	f.StringArrayVar(&configs, "config", nil, "a topic config override name=value (repeatable)")
	f.BoolVar(&ifNotExists, "if-not-exists", false, "succeed without doing anything if the topic exists")
	f.BoolVar(&disableRack, "disable-rack-aware", false, "place replicas without rack information")
	return cmd
}

// matchTopics lists the topics --topic matches, in name order.
func (a *app) matchTopics(ctx context.Context, b backend.Backend, pattern string, excludeInternal bool) ([]backend.TopicListing, error) {
	match, err := topicMatcher(pattern)
	if err != nil {
		return nil, err
	}
	all, err := b.ListTopics(ctx)
	if err != nil {
		return nil, err
	}
	var out []backend.TopicListing
	for _, t := range all {
		if match(t.Name) && !(excludeInternal && t.Internal) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (a *app) topicsList() *cobra.Command {
	var pattern string
	var excludeInternal bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List topics",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				topics, err := a.matchTopics(ctx, b, pattern, excludeInternal)
				if err != nil {
					return err
				}
				if a.jsonOutput() {
					return a.printJSON(listJSON(topics))
				}
				t := newTable(a.out, "TOPIC", "PARTITIONS", "RF", "STATUS")
				for _, l := range topics {
					t.row(l.Name, countOrDash(l.Partitions, l.Err), countOrDash(l.ReplicationFactor, l.Err), listStatus(l))
				}
				t.flush()
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&pattern, "topic", "", "regular expression the topic names must match")
	cmd.Flags().BoolVar(&excludeInternal, "exclude-internal", false, "leave out internal topics")
	return cmd
}

func countOrDash(n int, err error) string {
	if err != nil {
		return "-"
	}
	return fmt.Sprint(n)
}

func listStatus(l backend.TopicListing) string {
	switch {
	case l.Err != nil:
		return "error: " + l.Err.Error()
	case l.MarkedForDeletion:
		return "marked for deletion"
	case l.Internal:
		return "internal"
	}
	return ""
}

type topicListJSON struct {
	Name              string `json:"name"`
	Partitions        int    `json:"partitions"`
	ReplicationFactor int    `json:"replication_factor"`
	Internal          bool   `json:"internal"`
	MarkedForDeletion bool   `json:"marked_for_deletion"`
	Error             string `json:"error,omitempty"`
}

func listJSON(topics []backend.TopicListing) []topicListJSON {
	out := make([]topicListJSON, 0, len(topics))
	for _, l := range topics {
		j := topicListJSON{Name: l.Name, Partitions: l.Partitions, ReplicationFactor: l.ReplicationFactor,
			Internal: l.Internal, MarkedForDeletion: l.MarkedForDeletion}
		if l.Err != nil {
			j.Error = l.Err.Error()
		}
		out = append(out, j)
	}
	return out
}
