package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

func (a *app) topicsAlter() *cobra.Command {
	var pattern, assignment string
	var partitions int32
	var ifExists, disableRack bool
	cmd := &cobra.Command{
		Use:   "alter --topic NAME --partitions N [--replica-assignment ...]",
		Short: "Add partitions to topics",
		Long: `Add partitions to the topics --topic matches. New partitions continue the
existing layout, or take --replica-assignment: either lists for the new
partitions only, or for every partition (the existing ones must then be
listed as they are, as kafka-topics does).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pattern == "" || !cmd.Flags().Changed("partitions") {
				return usagef("--topic and --partitions are required")
			}
			var asg [][]int32
			if assignment != "" {
				var err error
				if asg, err = parseReplicaAssignment(assignment); err != nil {
					return err
				}
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				topics, err := a.matchTopics(ctx, b, pattern, false)
				if err != nil {
					return err
				}
				if len(topics) == 0 {
					return noSuchTopic(pattern, ifExists)
				}
				return a.addPartitions(ctx, b, topics, partitions, asg, disableRack)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&pattern, "topic", "", "the topic to alter (a regular expression)")
	f.Int32Var(&partitions, "partitions", 0, "the new partition count")
	f.StringVar(&assignment, "replica-assignment", "", "replicas of the partitions: 0:1,1:2,...")
	f.BoolVar(&ifExists, "if-exists", false, "succeed without doing anything if no topic matches")
	f.BoolVar(&disableRack, "disable-rack-aware", false, "place replicas without rack information")
	return cmd
}

// addPartitions raises each topic's partition count to total.
func (a *app) addPartitions(ctx context.Context, b backend.Backend, topics []backend.TopicListing, total int32,
	asg [][]int32, disableRack bool) error {
	var results []*backend.CreatePartitionsResult
	for _, t := range topics {
		req := backend.CreatePartitionsRequest{Topic: t.Name, Total: total, DisableRackAware: disableRack,
			DryRun: a.g.DryRun, Assignment: newPartitionsOnly(asg, t.Partitions, total)}
		res, err := b.CreatePartitions(ctx, req)
		if err != nil {
			return err
		}
		results = append(results, res)
		if !a.jsonOutput() {
			_ = a.result(res, res.Writes, func() {
				fmt.Fprintf(a.out, "Increased the partition count of topic %s from %d to %d.\n", t.Name, res.Previous, total)
			})
		}
	}
	if a.jsonOutput() {
		return a.printJSON(results)
	}
	return nil
}

// newPartitionsOnly drops the lists of existing partitions when the
// assignment covers all of them, as kafka-topics --alter does.
func newPartitionsOnly(asg [][]int32, existing int, total int32) [][]int32 {
	if asg != nil && len(asg) == int(total) && existing < len(asg) {
		return asg[existing:]
	}
	return asg
}

// noSuchTopic is kafka-topics' answer when --topic matches nothing.
func noSuchTopic(pattern string, ifExists bool) error {
	if ifExists {
		return nil
	}
	return &backend.Error{Resource: pattern, Code: 3, Name: backend.ErrorName(3), Reason: "UnknownTopic",
		Message: fmt.Sprintf("Topic '%s' does not exist as expected", pattern)}
}

func (a *app) topicsDelete() *cobra.Command {
	var pattern string
	var ifExists bool
	cmd := &cobra.Command{
		Use:   "delete --topic NAME",
		Short: "Mark topics for deletion",
		Long: `Mark the topics --topic matches for deletion: kzadmin creates
/admin/delete_topics/<topic> and the controller deletes the topic (when
delete.topic.enable is true on the cluster). Internal topics are refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pattern == "" {
				return usagef("--topic is required")
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				topics, err := a.matchTopics(ctx, b, pattern, false)
				if err != nil {
					return err
				}
				if len(topics) == 0 {
					return noSuchTopic(pattern, ifExists)
				}
				return a.deleteTopics(ctx, b, topics)
			})
		},
	}
	cmd.Flags().StringVar(&pattern, "topic", "", "the topic to delete (a regular expression)")
	cmd.Flags().BoolVar(&ifExists, "if-exists", false, "succeed without doing anything if no topic matches")
	return cmd
}

func (a *app) deleteTopics(ctx context.Context, b backend.Backend, topics []backend.TopicListing) error {
	var internal []string
	for _, t := range topics {
		if t.Internal {
			internal = append(internal, t.Name)
		}
	}
	if len(internal) > 0 {
		return &backend.Error{Resource: internal[0], Code: 17, Name: backend.ErrorName(17), Reason: "InvalidTopic",
			Message: fmt.Sprintf("Topic %s is a kafka internal topic and is not allowed to be marked for deletion.",
				strings.Join(internal, ", "))}
	}
	type deleted struct {
		Topic string `json:"topic"`
		*backend.DeleteTopicResult
	}
	var results []deleted
	var errs []error
	for _, t := range topics {
		res, err := b.DeleteTopic(ctx, t.Name, a.g.DryRun)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		results = append(results, deleted{t.Name, res})
		if a.jsonOutput() {
			continue
		}
		_ = a.result(res, res.Writes, func() {
			if res.AlreadyMarked {
				fmt.Fprintf(a.out, "Topic %s is already marked for deletion.\n", t.Name)
			} else {
				fmt.Fprintf(a.out, "Topic %s is marked for deletion.\n", t.Name)
			}
		})
	}
	if a.jsonOutput() && len(errs) == 0 {
		return a.printJSON(results)
	}
	return errors.Join(errs...)
}
