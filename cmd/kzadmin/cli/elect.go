package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// electFlags are the elect command's flags.
type electFlags struct {
	electionType, topic, jsonPath string
	partition, leader             int32
	allPartitions                 bool
	waitTimeout                   time.Duration
}

func (a *app) electCommand() *cobra.Command {
	var fl electFlags
	cmd := &cobra.Command{
		Use: "elect --election-type preferred|unclean|designated (--topic T --partition P [--leader B] | " +
			"--all-topic-partitions | --path-to-json-file F)",
		Short: "Elect partition leaders (kafka-leader-election.sh)",
		Long: `Run leader elections.

preferred: with --zookeeper, writes /admin/preferred_replica_election for the
partitions (with --all-topic-partitions: those not led by their preferred
replica); Kafka's controller runs the election.

unclean: elects a leader from outside the ISR for partitions that have no
leader. ZooKeeper has no request znode for that, so with --zookeeper kzadmin
sets unclean.leader.election.enable=true on each topic concerned (Kafka's
controller then elects), waits for the leaders (--wait-timeout), and puts the
topic's previous setting back. Data not yet replicated to the new leader is
lost: that is what unclean means.

With --bootstrap-server both go through the ElectLeaders API, which answers
once the controller has elected the leaders.

designated: elects the named leader (--leader, or "leader" per entry of the
JSON file) with ElectLeaders v3 DesiredLeaders (KIP-966, seed 003). It needs
--bootstrap-server and a controller that serves v3 (kzadmind).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runElect(cmd, fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.electionType, "election-type", "", "preferred, unclean or designated")
	f.Int32Var(&fl.leader, "leader", -1, "designated: the broker to elect (with --topic and --partition)")
	f.StringVar(&fl.topic, "topic", "", "the topic of the partition to elect")
	f.Int32Var(&fl.partition, "partition", -1, "the partition to elect (with --topic)")
	f.BoolVar(&fl.allPartitions, "all-topic-partitions", false, "every partition that needs an election")
	f.StringVar(&fl.jsonPath, "path-to-json-file", "", `file: {"partitions":[{"topic":"foo","partition":1}]}`)
	f.DurationVar(&fl.waitTimeout, "wait-timeout", time.Minute, "unclean: how long to wait for the new leaders")
	return cmd
}

// runElect checks the flags, sends the election and prints its result.
func (a *app) runElect(cmd *cobra.Command, fl electFlags) error {
	req, err := electionRequest(cmd, fl.electionType, fl.topic, fl.partition, fl.allPartitions, fl.jsonPath)
	if err == nil {
		err = designate(cmd, req, fl.leader, fl.jsonPath)
	}
	if err != nil {
		return err
	}
	req.DryRun, req.Timeout = a.g.DryRun, fl.waitTimeout
	req.Progress = func(s string) {
		if !a.jsonOutput() {
			fmt.Fprintln(a.errOut, s)
		}
	}
	b, err := a.open(cmd.Context())
	if err != nil {
		return err
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(cmd.Context(), a.g.Timeout+fl.waitTimeout)
	defer cancel()
	res, err := b.ElectLeaders(ctx, *req)
	if res != nil {
		_ = a.result(res, res.Writes, func() { a.printElection(req.Type, res) })
	}
	return fail(err)
}

// electionRequest checks the flag combinations as kafka-leader-election.
func electionRequest(cmd *cobra.Command, typ, topic string, partition int32, all bool, jsonPath string) (*backend.ElectionRequest, error) {
	req := &backend.ElectionRequest{Type: backend.ElectionType(strings.ToUpper(typ))}
	if req.Type != backend.Preferred && req.Type != backend.Unclean && req.Type != backend.Designated {
		return nil, usagef("--election-type must be preferred, unclean or designated")
	}
	sources := 0
	for _, set := range []bool{topic != "", all, jsonPath != ""} {
		if set {
			sources++
		}
	}
	switch {
	case sources != 1:
		return nil, usagef("give exactly one of --topic (with --partition), --all-topic-partitions, --path-to-json-file")
	case topic != "" && !cmd.Flags().Changed("partition"):
		return nil, usagef("--topic needs --partition")
	case topic == "" && cmd.Flags().Changed("partition"):
		return nil, usagef("--partition needs --topic")
	case topic != "":
		req.Partitions = []backend.TopicPartition{{Topic: topic, Partition: partition}}
	case jsonPath != "":
		tps, err := readElectionPartitions(jsonPath)
		if err != nil {
			return nil, err
		}
		req.Partitions = tps
	}
	return req, nil
}

func (a *app) printElection(typ backend.ElectionType, res *backend.ElectionResult) {
	for _, n := range res.Notes {
		fmt.Fprintln(a.out, n)
	}
	switch {
	case len(res.Requested) == 0:
	case typ == backend.Preferred && len(res.Elected) > 0:
		// The wire's ElectLeaders answers once the leaders are elected.
		fmt.Fprintf(a.out, "Successfully completed leader election (PREFERRED) for partitions %s\n", tpNames(res.Elected))
	case typ == backend.Preferred:
		fmt.Fprintf(a.out, "Requested a preferred leader election for partitions %s.\n", tpNames(res.Requested))
	case len(res.Elected) > 0:
		fmt.Fprintf(a.out, "Successfully completed leader election (%s) for partitions %s\n", typ, tpNames(res.Elected))
	}
}
