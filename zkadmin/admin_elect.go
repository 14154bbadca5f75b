package zkadmin

import (
	"context"
	"strings"

	"github.com/kzadmin/kzadmin/znodes"
)

// ElectionResult says what ElectPreferredLeaders wrote (or would write).
type ElectionResult struct {
	Partitions []znodes.TopicPartition
	Ops        []Op
	Attempts   int
}

// ElectPreferredLeaders writes the legacy /admin/preferred_replica_election
// request (version 1, Kafka's format) for the given partitions, which must
// exist; duplicates are dropped. Kafka's controller runs the election and
// deletes the znode. It refuses while a previous request is still there,
// as Kafka's tool did.
func (a *Admin) ElectPreferredLeaders(ctx context.Context, tps []znodes.TopicPartition, dryRun bool) (*ElectionResult, error) {
	out := &ElectionResult{}
	topics := make([]string, 0, len(tps))
	for _, tp := range tps {
		topics = append(topics, tp.Topic)
	}
	plan := func(ctx context.Context, c *Cluster) ([]Op, error) {
		if err := checkNoElection(c); err != nil {
			return nil, err
		}
		if len(tps) == 0 {
			return nil, adminErr(KindInvalidRequest, "cluster", "The preferred leader election lists no partitions.")
		}
		out.Partitions = nil
		seen := map[znodes.TopicPartition]bool{}
		for _, tp := range tps {
			if seen[tp] {
				continue
			}
			seen[tp] = true
			if _, err := existingPartition(c, tp); err != nil {
				return nil, err
			}
			out.Partitions = append(out.Partitions, tp)
		}
		data, err := znodes.PreferredReplicaElection{Partitions: out.Partitions}.Encode()
		if err != nil {
			return nil, err
		}
		ops, err := a.parentOps(ctx, znodes.PreferredReplicaElectionPath)
		if err != nil {
			return nil, err
		}
		return append(ops, CreateOp(znodes.PreferredReplicaElectionPath, data, Persistent)), nil
	}
	res, err := a.writeLoop(ctx, "preferred leader election", ReadOptions{Topics: topics}, dryRun, plan)
	if err != nil {
		return nil, err
	}
	out.Ops, out.Attempts = res.ops, res.attempts
	return out, nil
}

func checkNoElection(c *Cluster) error {
	if c.PreferredElection == nil && c.PreferredElectionErr == nil {
		return nil
	}
	what := "a request that does not decode"
	if c.PreferredElection != nil {
		names := make([]string, 0, len(c.PreferredElection.Partitions))
		for _, tp := range c.PreferredElection.Partitions {
			names = append(names, tp.String())
		}
		what = strings.Join(names, ", ")
	}
	return adminErr(KindElectionInProgress, "cluster", "Preferred replica leader election currently in progress for %s "+
		"(%s exists; Kafka's controller deletes it when done). Aborting operation", what, znodes.PreferredReplicaElectionPath)
}
