package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

// planFunc decides, from one read of the cluster, the ops of one multi, or
// refuses. It may read more (for example whether a parent exists), but it
// writes nothing.
type planFunc func(ctx context.Context, c *Cluster) ([]Op, error)

// writeResult is what writeLoop reports.
type writeResult struct {
	ops      []Op
	attempts int
	cluster  *Cluster // the read the applied plan was made from
}

// writeLoop is the one way admin writes reach ZooKeeper: read, plan
// (validate, check limits, build the ops), and apply the ops as one multi.
// When the multi fails on a version check or a create or delete that lost
// to a concurrent writer, nothing was applied, so it reads again and plans
// again: the next plan either succeeds or refuses with the proper error
// (the topic now exists, the limit is now reached, ...). That keeps
// validation in one place. With dryRun the first plan is returned unapplied.
func (a *Admin) writeLoop(ctx context.Context, what string, read ReadOptions, dryRun bool, plan planFunc) (writeResult, error) {
	var last error
	for attempt := 1; attempt <= a.opts.MaxAttempts; attempt++ {
		var c *Cluster
		if !read.noCluster {
			var err error
			if c, err = a.ReadCluster(ctx, read); err != nil {
				return writeResult{attempts: attempt}, fmt.Errorf("%s: %w", what, err)
			}
		}
		ops, err := plan(ctx, c)
		if err != nil {
			return writeResult{attempts: attempt, cluster: c}, err
		}
		ops = dedupeCreates(ops)
		res := writeResult{ops: ops, attempts: attempt, cluster: c}
		if dryRun || len(ops) == 0 {
			return res, nil
		}
		_, err = a.zk.Multi(ctx, ops...)
		a.writes.Add(1) // landed or maybe landed: pre-reads sent before are stale
		if err == nil {
			return res, nil
		}
		if !isConflict(err) {
			return res, fmt.Errorf("%s: %w", what, err)
		}
		last = err
		a.opts.Logger.Debug().Err(err).Int("attempt", attempt).Str("op", what).Msg("lost a race; re-reading")
		if err := backoff(ctx, attempt); err != nil {
			return res, fmt.Errorf("%s: %w", what, err)
		}
	}
	e := adminErr(KindConflict, "", "%s: gave up after %d attempts; the znodes kept changing under concurrent writers (last: %v)",
		what, a.opts.MaxAttempts, last)
	e.Err = last
	return writeResult{attempts: a.opts.MaxAttempts}, e
}

// isConflict reports whether a multi failed because another writer changed
// a znode it checked: nothing was applied and a fresh plan may succeed.
func isConflict(err error) bool {
	var me *MultiError
	if !errors.As(err, &me) {
		return false
	}
	return errors.Is(me.Err, ErrBadVersion) || errors.Is(me.Err, ErrNodeExists) || errors.Is(me.Err, ErrNoNode) ||
		errors.Is(me.Err, ErrNotEmpty) // a child appeared under a znode being removed
}

// dedupeCreates drops repeated creates of the same path (two parts of a
// plan may both need /config created), which would fail the multi.
func dedupeCreates(ops []Op) []Op {
	seen := map[string]bool{}
	out := ops[:0:0]
	for _, o := range ops {
		if o.Kind == OpCreate && !o.Mode.sequential() {
			if seen[o.Path] {
				continue
			}
			seen[o.Path] = true
		}
		out = append(out, o)
	}
	return out
}

// backoff waits a little, with jitter, so that racing writers spread out.
func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(rand.IntN(min(attempt, 10)*2+1)) * time.Millisecond
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fenceOps orders a write that adds replicas against every other such write
// (see "Partition limits" in the package doc): a SetData of /brokers/topics
// (keeping its null data) that expects the version read before the counts,
// or the creation of /brokers/topics when it did not exist; and a check
// that the dynamic limits in /config/brokers/<default> did not change.
func (a *Admin) fenceOps(ctx context.Context, c *Cluster) ([]Op, error) {
	var ops []Op
	if c.TopicsExist {
		ops = append(ops, SetOp(znodes.TopicsPath, nil, c.TopicsVersion))
	} else {
		created, err := a.createPathOps(ctx, znodes.TopicsPath)
		if err != nil {
			return nil, err
		}
		ops = append(ops, created...)
	}
	if c.BrokerDefaultsVersion >= 0 {
		ops = append(ops, CheckOp(znodes.ConfigEntityPath(znodes.EntityBrokers, znodes.DefaultEntityName),
			c.BrokerDefaultsVersion))
	}
	return ops, nil
}

// createPathOps returns create ops (persistent, null data) for path and
// each missing ancestor, outermost first; nil when path exists. Should
// another writer create one of them first, the multi fails with NodeExists
// and writeLoop plans again.
func (a *Admin) createPathOps(ctx context.Context, path string) ([]Op, error) {
	return a.createPathOpsWith(ctx, path, a.zk.Exists)
}

// createPathOpsWith is createPathOps asking exists whether each znode
// exists.
func (a *Admin) createPathOpsWith(ctx context.Context, path string,
	exists func(context.Context, string) (bool, Stat, error)) ([]Op, error) {
	var missing []string
	for p := path; p != "/"; p = parentOf(p) {
		ok, _, err := exists(ctx, p)
		if err != nil {
			return nil, err
		}
		if ok {
			break
		}
		missing = append(missing, p)
	}
	ops := make([]Op, 0, len(missing))
	for i := len(missing) - 1; i >= 0; i-- {
		ops = append(ops, CreateOp(missing[i], nil, Persistent))
	}
	return ops, nil
}

// parentOps is createPathOps for the parent of path.
func (a *Admin) parentOps(ctx context.Context, path string) ([]Op, error) {
	return a.createPathOps(ctx, parentOf(path))
}

// watchedParentOps is parentOps reading through a WatchedReader (the
// create path's: the parents of /config/topics/<t> hardly ever change).
func (a *Admin) watchedParentOps(ctx context.Context, path string) ([]Op, error) {
	w, err := a.zk.Watched(ctx)
	if err != nil {
		return nil, err
	}
	return a.createPathOpsWith(ctx, parentOf(path), func(ctx context.Context, p string) (bool, Stat, error) {
		return w.Exists(ctx, p)
	})
}

// putOp writes data at path: a version-checked SetData when it existed at
// version (>= 0), else a create (and its missing parents).
func (a *Admin) putOp(ctx context.Context, path string, data []byte, version int32) ([]Op, error) {
	if version >= 0 {
		return []Op{SetOp(path, data, version)}, nil
	}
	ops, err := a.parentOps(ctx, path)
	if err != nil {
		return nil, err
	}
	return append(ops, CreateOp(path, data, Persistent)), nil
}

// notificationOps creates the v2 config change notification for an entity
// (and /config/changes when missing).
func (a *Admin) notificationOps(ctx context.Context, entityType, sanitizedName string) ([]Op, error) {
	data, err := znodes.NewConfigChangeNotification(entityType, sanitizedName).Encode()
	if err != nil {
		return nil, err
	}
	ops, err := a.parentOps(ctx, znodes.ConfigChangeSequencePath)
	if err != nil {
		return nil, err
	}
	return append(ops, CreateOp(znodes.ConfigChangeSequencePath, data, PersistentSequential)), nil
}
