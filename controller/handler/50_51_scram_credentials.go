package handler

// DescribeUserScramCredentials (50) and AlterUserScramCredentials (51), v0.
// The Java AdminClient sends AlterUserScramCredentials to the controller,
// which is kzadmind, so kafka-configs --bootstrap-server --alter
// --add-config 'SCRAM-SHA-256=[password=...]' needs kzadmind to serve it;
// DescribeUserScramCredentials goes to any listed node, kzadmind included.
//
// Behaviour, in Kafka's order:
//   - Describe: DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED
//     at the top level and on one result per user named. Served by every
//     kzadmind.
//   - Alter: NOT_CONTROLLER on a standby, then ALTER on the cluster, else
//     CLUSTER_AUTHORIZATION_FAILED; either error is answered on one result
//     per distinct user, sorted, as Kafka does.
//   - Then the Admin (zkadmin: the credentials in /config/users/<user>,
//     with their change notifications).
//
// Deliberate differences: alter results are sorted by user (Kafka's come
// from hash maps), and a stored credential that does not parse is
// answered UNKNOWN_SERVER_ERROR with a message naming the znode.

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// ScramAdmin reads and writes SCRAM credentials; *zkadmin.Admin implements
// it. Without one, the SCRAM APIs are not served.
type ScramAdmin interface {
	DescribeUserScramCredentials(ctx context.Context, users []string) ([]zkadmin.ScramUserCredentials, error)
	AlterUserScramCredentials(ctx context.Context, ups []zkadmin.ScramUpsertion, dels []zkadmin.ScramDeletion) []zkadmin.ScramAlterResult
}

func (h *Handlers) describeUserScramCredentials(ctx context.Context, req *wire.Request, r *kmsg.DescribeUserSCRAMCredentialsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeUserSCRAMCredentialsResponse)
	if !h.allows(ctx, req, OpDescribe, ClusterResource()) {
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		for range r.Users {
			res := kmsg.NewDescribeUserSCRAMCredentialsResponseResult()
			res.ErrorCode = kerr.ClusterAuthorizationFailed.Code
			resp.Results = append(resp.Results, res)
		}
		return resp
	}
	users := make([]string, len(r.Users))
	for i, u := range r.Users {
		users[i] = u.Name
	}
	results, err := h.scram.DescribeUserScramCredentials(ctx, users)
	if err != nil {
		e := h.quotaError(err)
		resp.ErrorCode, resp.ErrorMessage = e.code, e.msg
		return resp
	}
	// Kafka leaves the messages of successes at their default, "".
	resp.ErrorMessage = strp("")
	for _, u := range results {
		res := kmsg.NewDescribeUserSCRAMCredentialsResponseResult()
		res.User, res.ErrorMessage = u.User, strp("")
		if u.Err != nil {
			e := h.quotaError(u.Err)
			res.ErrorCode, res.ErrorMessage = e.code, e.msg
		} else {
			for _, c := range u.Credentials {
				info := kmsg.NewDescribeUserSCRAMCredentialsResponseResultCredentialInfo()
				info.Mechanism, info.Iterations = c.Mechanism, c.Iterations
				res.CredentialInfos = append(res.CredentialInfos, info)
			}
		}
		resp.Results = append(resp.Results, res)
	}
	return resp
}

func (h *Handlers) alterUserScramCredentials(ctx context.Context, req *wire.Request, r *kmsg.AlterUserSCRAMCredentialsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.AlterUserSCRAMCredentialsResponse)
	failAll := func(code int16) kmsg.Response {
		var users []string
		for _, d := range r.Deletions {
			users = append(users, d.Name)
		}
		for _, u := range r.Upsertions {
			users = append(users, u.Name)
		}
		slices.Sort(users)
		for _, u := range slices.Compact(users) {
			res := kmsg.NewAlterUserSCRAMCredentialsResponseResult()
			res.User, res.ErrorCode = u, code
			resp.Results = append(resp.Results, res)
		}
		return resp
	}
	if !h.cluster.View().Active {
		return failAll(kerr.NotController.Code)
	}
	if !h.allows(ctx, req, OpAlter, ClusterResource()) {
		return failAll(kerr.ClusterAuthorizationFailed.Code)
	}
	ups := make([]zkadmin.ScramUpsertion, len(r.Upsertions))
	for i, u := range r.Upsertions {
		ups[i] = zkadmin.ScramUpsertion{User: u.Name, Mechanism: u.Mechanism, Iterations: u.Iterations,
			Salt: u.Salt, SaltedPassword: u.SaltedPassword}
	}
	dels := make([]zkadmin.ScramDeletion, len(r.Deletions))
	for i, d := range r.Deletions {
		dels[i] = zkadmin.ScramDeletion{User: d.Name, Mechanism: d.Mechanism}
	}
	for _, u := range h.scram.AlterUserScramCredentials(ctx, ups, dels) {
		res := kmsg.NewAlterUserSCRAMCredentialsResponseResult()
		res.User = u.User
		e := h.quotaError(u.Err)
		res.ErrorCode, res.ErrorMessage = e.code, e.msg
		if u.Err == nil {
			res.ErrorMessage = strp("") // Kafka's default, never set on success
		}
		resp.Results = append(resp.Results, res)
	}
	return resp
}
