package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/znodes"
)

// SCRAM credentials through the admin API (DescribeUserScramCredentials and
// AlterUserScramCredentials), kept where kafka-configs and Kafka's
// ZooKeeper-mode brokers keep them: the mechanism's key in
// /config/users/<sanitized user>, holding the stored credential.

// ScramUpsertion sets one user's credential for one mechanism. The client
// sends the salted password, never the password itself.
type ScramUpsertion struct {
	User           string
	Mechanism      int8 // the wire's code: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
	Iterations     int32
	Salt           []byte
	SaltedPassword []byte
}

// ScramDeletion removes one user's credential for one mechanism.
type ScramDeletion struct {
	User      string
	Mechanism int8
}

// ScramAlterResult is one user's outcome: Err is nil on success, else an
// *AdminError carrying Kafka's code and message, or a ZooKeeper failure.
type ScramAlterResult struct {
	User string
	Err  error
}

// ScramCredentialInfo is one mechanism a user has a credential for.
type ScramCredentialInfo struct {
	Mechanism  int8
	Iterations int32
}

// ScramUserCredentials is one user's credentials, or the error describing
// them met.
type ScramUserCredentials struct {
	User        string
	Credentials []ScramCredentialInfo
	Err         error
}

// The messages Kafka answers with.
const (
	msgEmptyUser            = "Username must not be empty"
	msgUnknownMechanism     = "Unknown SCRAM mechanism"
	msgTooFewIterations     = "Too few iterations"
	msgTooManyIterations    = "Too many iterations"
	msgAlteredTwice         = "A user credential cannot be altered twice in the same request"
	msgDeleteMissing        = "Attempt to delete a user credential that does not exist"
	msgDescribeMissing      = "Attempt to describe a user credential that does not exist"
	msgDescribeTwicePrefix  = "Cannot describe SCRAM credentials for the same user twice in a single request"
	scramResourceForRefusal = "user"
)

// scramRefusal is a refusal of a user's alterations.
func scramRefusal(code int16, user, msg string) *AdminError {
	return adminErr(KindInvalidRequest, scramResourceForRefusal+" "+user, "%s", msg).withCode(code)
}

// scramPlan is what planScramAlterations decided: refusals by user, and
// the users whose alterations go ahead, sorted.
type scramPlan struct {
	refused map[string]*AdminError
	alter   []string
}

// planScramAlterations applies Kafka's request checks, in its order: an
// empty user name, an unknown mechanism or an iteration count outside
// [4096, 16384] refuses all of that user's alterations; then a user with
// the same mechanism altered twice (upserted or deleted) is refused.
func planScramAlterations(ups []ScramUpsertion, dels []ScramDeletion) scramPlan {
	p := scramPlan{refused: map[string]*AdminError{}}
	illegal := func(user string, mech int8, iterations int32, upsert bool) (int16, string, bool) {
		switch {
		case user == "":
			return CodeUnacceptableCredential, msgEmptyUser, true
		case !scram.Mechanism(mech).Valid():
			return CodeUnsupportedSaslMechanism, msgUnknownMechanism, true
		case upsert && iterations < scram.MinIterations:
			return CodeUnacceptableCredential, msgTooFewIterations, true
		case upsert && iterations > scram.MaxIterations:
			return CodeUnacceptableCredential, msgTooManyIterations, true
		}
		return 0, "", false
	}
	// Deletions first: an upsertion's refusal of the same user wins.
	for _, d := range dels {
		if code, msg, bad := illegal(d.User, d.Mechanism, 0, false); bad {
			p.refused[d.User] = scramRefusal(code, d.User, msg)
		}
	}
	for _, u := range ups {
		if code, msg, bad := illegal(u.User, u.Mechanism, u.Iterations, true); bad {
			p.refused[u.User] = scramRefusal(code, u.User, msg)
		}
	}
	type pair struct {
		user string
		mech int8
	}
	seen := map[pair]bool{}
	twice := map[string]bool{}
	var order []string
	note := func(user string, mech int8) {
		if p.refused[user] != nil {
			return
		}
		k := pair{user, mech}
		if seen[k] {
			twice[user] = true
		}
		seen[k] = true
		order = append(order, user)
	}
	for _, u := range ups {
		note(u.User, u.Mechanism)
	}
	for _, d := range dels {
		note(d.User, d.Mechanism)
	}
	for user := range twice {
		p.refused[user] = scramRefusal(CodeDuplicateResource, user, msgAlteredTwice)
	}
	done := map[string]bool{}
	for _, user := range order {
		if !twice[user] && !done[user] {
			done[user] = true
			p.alter = append(p.alter, user)
		}
	}
	sort.Strings(p.alter)
	return p
}

// AlterUserScramCredentials upserts and deletes SCRAM credentials as a
// ZooKeeper-mode controller does: the request's checks first
// (planScramAlterations), then, for each user left, a deletion of a
// credential the user does not have refuses that user
// (RESOURCE_NOT_FOUND); otherwise the deletions and then the upsertions
// are applied to the user's config, which is validated and written with
// its change notification in one multi per user. A user left with no
// config and no children loses the znode, as in Kafka. Results are sorted
// by user (Kafka's order comes from hash maps).
func (a *Admin) AlterUserScramCredentials(ctx context.Context, ups []ScramUpsertion, dels []ScramDeletion) []ScramAlterResult {
	p := planScramAlterations(ups, dels)
	results := make([]ScramAlterResult, 0, len(p.refused)+len(p.alter))
	for user, err := range p.refused {
		results = append(results, ScramAlterResult{User: user, Err: err})
	}
	for _, user := range p.alter {
		results = append(results, ScramAlterResult{User: user, Err: a.alterUserScram(ctx, user, ups, dels)})
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].User < results[j].User })
	return results
}

// alterUserScram applies one user's upsertions and deletions.
func (a *Admin) alterUserScram(ctx context.Context, user string, ups []ScramUpsertion, dels []ScramDeletion) error {
	resource := znodes.EntityUsers + " " + user
	l := quotaLocation{entityType: znodes.EntityUsers, name: znodes.SanitizeEntityName(user), namedUser: true}
	plan := func(ctx context.Context, _ *Cluster) ([]Op, error) {
		before, version, err := a.quotaConfig(ctx, l.entityType, l.name, resource)
		if err != nil {
			return nil, err
		}
		after := make(map[string]string, len(before)+len(ups))
		for k, v := range before {
			after[k] = v
		}
		for _, d := range dels {
			if d.User != user {
				continue
			}
			key := scram.Mechanism(d.Mechanism).Name()
			if _, ok := after[key]; !ok {
				return nil, scramRefusal(CodeResourceNotFound, user, msgDeleteMissing)
			}
			delete(after, key)
		}
		for _, u := range ups {
			if u.User != user {
				continue
			}
			m := scram.Mechanism(u.Mechanism)
			after[m.Name()] = scram.FromSaltedPassword(m, u.Salt, u.SaltedPassword, int(u.Iterations)).String()
		}
		if err := ValidateUserConfig(user, after); err != nil {
			return nil, err
		}
		return a.entityConfigOps(ctx, l, after, version)
	}
	_, err := a.writeLoop(ctx, "alter SCRAM credentials of "+resource, ReadOptions{noCluster: true}, false, plan)
	return err
}

// DescribeUserScramCredentials lists users' SCRAM credentials (mechanism
// and iterations, never the keys) as a ZooKeeper-mode broker does. With
// no users named, every user with at least one credential, sorted.
// Otherwise one result per distinct name, in the order first named: an
// empty name, a name given twice, or a user without credentials gets
// Kafka's error. A credential that does not parse fails its user's
// result (KindMalformed). Only a failure to list the users fails the call.
func (a *Admin) DescribeUserScramCredentials(ctx context.Context, users []string) ([]ScramUserCredentials, error) {
	if len(users) == 0 {
		return a.describeAllScram(ctx)
	}
	count := map[string]int{}
	var distinct []string
	for _, u := range users {
		if count[u] == 0 {
			distinct = append(distinct, u)
		}
		count[u]++
	}
	var paths []string
	for _, u := range distinct {
		if u != "" && count[u] == 1 {
			paths = append(paths, znodes.ConfigEntityPath(znodes.EntityUsers, znodes.SanitizeEntityName(u)))
		}
	}
	reads := a.zk.GetMany(ctx, paths, 0)
	out := make([]ScramUserCredentials, 0, len(distinct))
	for _, u := range distinct {
		switch {
		case u == "":
			out = append(out, ScramUserCredentials{User: u, Err: scramRefusal(CodeResourceNotFound, u, msgEmptyUser)})
		case count[u] > 1:
			out = append(out, ScramUserCredentials{User: u,
				Err: scramRefusal(CodeDuplicateResource, u, msgDescribeTwicePrefix+": "+u)})
		default:
			r := reads[0]
			reads = reads[1:]
			res := scramCredentialsOf(u, r)
			if res.Err == nil && len(res.Credentials) == 0 {
				res.Err = scramRefusal(CodeResourceNotFound, u, msgDescribeMissing+": "+u)
			}
			out = append(out, res)
		}
	}
	return out, nil
}

// describeAllScram lists every user with a credential.
func (a *Admin) describeAllScram(ctx context.Context) ([]ScramUserCredentials, error) {
	names, err := a.configChildren(ctx, znodes.ConfigEntityTypePath(znodes.EntityUsers))
	if err != nil {
		return nil, fmt.Errorf("describe SCRAM credentials: %w", err)
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = znodes.ConfigEntityPath(znodes.EntityUsers, n)
	}
	var out []ScramUserCredentials
	for i, r := range a.zk.GetMany(ctx, paths, 0) {
		user, err := znodes.DesanitizeEntityName(names[i])
		if err != nil {
			user = names[i]
		}
		res := scramCredentialsOf(user, r)
		if errors.Is(res.Err, ErrNoNode) || res.Err == nil && len(res.Credentials) == 0 {
			continue // gone since the listing, or no credentials
		}
		if res.Err != nil && !errors.Is(res.Err, ErrMalformed) {
			return nil, fmt.Errorf("describe SCRAM credentials: %w", res.Err)
		}
		out = append(out, res)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].User < out[j].User })
	return out, nil
}

// scramCredentialsOf reads a user's credentials from its config znode's
// read: none when the znode is absent.
func scramCredentialsOf(user string, r GetResult) ScramUserCredentials {
	res := ScramUserCredentials{User: user}
	if errors.Is(r.Err, ErrNoNode) {
		return res
	}
	if r.Err != nil {
		res.Err = r.Err
		return res
	}
	cfg, err := znodes.DecodeEntityConfig(znodes.EntityUsers, znodes.SanitizeEntityName(user), r.Data)
	if err != nil {
		res.Err = malformed(r.Path, "describe the SCRAM credentials of user "+user+" in "+r.Path, err).withCode(CodeUnknownServerError)
		return res
	}
	for _, m := range scram.Mechanisms() {
		v, ok := cfg.Config[m.Name()]
		if !ok {
			continue
		}
		c, err := scram.ParseCredential(v)
		if err != nil {
			res.Credentials = nil
			res.Err = malformed(r.Path, "describe the SCRAM credentials of user "+user+" in "+r.Path, fmt.Errorf("%s: %w", m, err)).
				withCode(CodeUnknownServerError)
			return res
		}
		res.Credentials = append(res.Credentials, ScramCredentialInfo{Mechanism: int8(m), Iterations: int32(c.Iterations)})
	}
	return res
}
