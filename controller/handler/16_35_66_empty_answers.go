package handler

// ListGroups (16), ListTransactions (66) and DescribeLogDirs (35), v0 to
// what a Kafka 3.9 ZooKeeper-mode broker serves. Admin clients send the
// first two to every broker listed in Metadata and the third to every node
// DescribeCluster lists (kafka-consumer-groups --list, kafka-transactions
// list, kafka-log-dirs --describe); kzadmind is listed in both, so it must
// answer, or the whole command fails with UNSUPPORTED_VERSION. kzadmind
// coordinates no group and no transaction and has no log directory, so
// each answer is empty (DescribeLogDirs: see below), and the clients merge
// the brokers' answers with it.
//
// Behaviour:
//   - ListGroups: no groups, no error (Kafka filters groups by DESCRIBE,
//     which leaves an empty list empty).
//   - ListTransactions: no transactions; UnknownStateFilters lists the
//     state filters that name no transaction state, as Kafka's
//     TransactionStateManager does.
//   - DescribeLogDirs: one directory, named noLogDir, holding no
//     partitions, its sizes unknown (-1). An answer with no directory at
//     all is what the Java AdminClient reads as CLUSTER_AUTHORIZATION_FAILED
//     (an old broker's way of refusing), so kafka-log-dirs --describe, and
//     anything that asks every node (Cruise Control does), failed on it.
//     Without DESCRIBE on the cluster: no directory, and
//     CLUSTER_AUTHORIZATION_FAILED where the field exists (v3+).

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

func (h *Handlers) listGroups(_ context.Context, _ *wire.Request, r *kmsg.ListGroupsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ListGroupsResponse)
	resp.Groups = []kmsg.ListGroupsResponseGroup{}
	return resp
}

// transactionStates are the names of Kafka's TransactionState values, the
// states ListTransactions may filter on.
var transactionStates = map[string]bool{
	"Empty": true, "Ongoing": true, "PrepareCommit": true, "PrepareAbort": true,
	"CompleteCommit": true, "CompleteAbort": true, "Dead": true, "PrepareEpochFence": true,
}

func (h *Handlers) listTransactions(_ context.Context, _ *wire.Request, r *kmsg.ListTransactionsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ListTransactionsResponse)
	resp.UnknownStateFilters = []string{}
	for _, s := range r.StateFilters {
		if !transactionStates[s] {
			resp.UnknownStateFilters = append(resp.UnknownStateFilters, s)
		}
	}
	resp.TransactionStates = []kmsg.ListTransactionsResponseTransactionState{}
	return resp
}

// noLogDir names the one, empty, log directory kzadmind reports; it is no
// path, so that nobody mistakes it for one.
const noLogDir = "(none: kzadmind is a controller and keeps no logs)"

func (h *Handlers) describeLogDirs(ctx context.Context, req *wire.Request, r *kmsg.DescribeLogDirsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeLogDirsResponse)
	resp.Dirs = []kmsg.DescribeLogDirsResponseDir{}
	if !h.allows(ctx, req, OpDescribe, ClusterResource()) {
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return resp
	}
	d := kmsg.NewDescribeLogDirsResponseDir()
	d.Dir, d.Topics, d.TotalBytes, d.UsableBytes = noLogDir, []kmsg.DescribeLogDirsResponseDirTopic{}, -1, -1
	resp.Dirs = append(resp.Dirs, d)
	return resp
}
