package zkadmin

import (
	"context"
	"errors"
	"slices"

	"github.com/go-zookeeper/zk"
)

type getResult struct {
	data []byte
	stat *zk.Stat
}

// Get reads a znode's data and stat.
func (c *Client) Get(ctx context.Context, path string) ([]byte, Stat, error) {
	full, err := c.serverPath("get", path, false)
	if err != nil {
		return nil, Stat{}, err
	}
	r, err := run(ctx, c, func() (getResult, error) {
		d, s, err := c.conn.Get(full)
		return getResult{d, s}, err
	})
	if err != nil {
		return nil, Stat{}, c.fail("get", path, err, false)
	}
	return r.data, statFrom(r.stat), nil
}

// GetW reads a znode and leaves a data watch on it: the channel gets one
// Event (data changed, deleted, or not-watching) and is then closed. No
// watch is left when the znode does not exist (ErrNoNode); use ExistsW.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, Stat, <-chan Event, error) {
	return c.getW(ctx, path, false)
}

// getW is GetW; with remember, a WatchedReader may answer from it later.
func (c *Client) getW(ctx context.Context, path string, remember bool) ([]byte, Stat, chan Event, error) {
	full, err := c.serverPath("get", path, false)
	if err != nil {
		return nil, Stat{}, nil, err
	}
	gen := c.watches.generation()
	ch := c.watches.add(path, watchData)
	r, err := run(ctx, c, func() (getResult, error) {
		// go-zookeeper's own channel is dropped: the event reaches ours
		// through the event callback, with the chroot stripped.
		d, s, _, err := c.conn.GetW(full)
		if err != nil {
			c.watches.remove(path, watchData, ch)
		}
		return getResult{d, s}, err
	})
	if err != nil {
		return nil, Stat{}, nil, c.fail("get", path, err, false)
	}
	st := statFrom(r.stat)
	if remember {
		c.watches.remember(watchKey{path, watchData}, ch, gen, watchedRead{data: slices.Clone(r.data), stat: st})
	}
	return r.data, st, ch, nil
}

type childrenResult struct {
	children []string
	stat     *zk.Stat
}

// Children lists a znode's children (names, not paths, in no particular
// order) with the znode's stat.
func (c *Client) Children(ctx context.Context, path string) ([]string, Stat, error) {
	full, err := c.serverPath("children", path, false)
	if err != nil {
		return nil, Stat{}, err
	}
	r, err := run(ctx, c, func() (childrenResult, error) {
		ch, s, err := c.conn.Children(full)
		return childrenResult{ch, s}, err
	})
	if err != nil {
		return nil, Stat{}, c.fail("children", path, err, false)
	}
	return r.children, statFrom(r.stat), nil
}

// ChildrenW lists children and leaves a children watch (children changed,
// or the znode deleted).
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, Stat, <-chan Event, error) {
	return c.childrenW(ctx, path, false)
}

// childrenW is ChildrenW; with remember, a WatchedReader may answer from
// it later.
func (c *Client) childrenW(ctx context.Context, path string, remember bool) ([]string, Stat, chan Event, error) {
	full, err := c.serverPath("children", path, false)
	if err != nil {
		return nil, Stat{}, nil, err
	}
	gen := c.watches.generation()
	ch := c.watches.add(path, watchChild)
	r, err := run(ctx, c, func() (childrenResult, error) {
		children, s, _, err := c.conn.ChildrenW(full)
		if err != nil {
			c.watches.remove(path, watchChild, ch)
		}
		return childrenResult{children, s}, err
	})
	if err != nil {
		return nil, Stat{}, nil, c.fail("children", path, err, false)
	}
	st := statFrom(r.stat)
	if remember {
		c.watches.remember(watchKey{path, watchChild}, ch, gen, watchedRead{children: slices.Clone(r.children), stat: st})
	}
	return r.children, st, ch, nil
}

type existsResult struct {
	ok   bool
	stat *zk.Stat
}

// Exists reports whether a znode exists, with its stat when it does.
func (c *Client) Exists(ctx context.Context, path string) (bool, Stat, error) {
	full, err := c.serverPath("exists", path, false)
	if err != nil {
		return false, Stat{}, err
	}
	r, err := run(ctx, c, func() (existsResult, error) {
		ok, s, err := c.conn.Exists(full)
		return existsResult{ok, s}, err
	})
	if err != nil {
		return false, Stat{}, c.fail("exists", path, err, false)
	}
	if !r.ok {
		return false, Stat{}, nil
	}
	return true, statFrom(r.stat), nil
}

// ExistsW is Exists plus a watch that fires on creation, data change or
// deletion, whichever comes first. It is how Kafka watches /controller.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, Stat, <-chan Event, error) {
	return c.existsW(ctx, path, false)
}

// existsW is ExistsW; with remember, a WatchedReader may answer from it
// later.
func (c *Client) existsW(ctx context.Context, path string, remember bool) (bool, Stat, chan Event, error) {
	full, err := c.serverPath("exists", path, false)
	if err != nil {
		return false, Stat{}, nil, err
	}
	gen := c.watches.generation()
	ch := c.watches.add(path, watchExist)
	r, err := run(ctx, c, func() (existsResult, error) {
		ok, s, _, err := c.conn.ExistsW(full)
		if err != nil {
			c.watches.remove(path, watchExist, ch)
		}
		return existsResult{ok, s}, err
	})
	if err != nil {
		return false, Stat{}, nil, c.fail("exists", path, err, false)
	}
	var st Stat
	if r.ok {
		st = statFrom(r.stat)
	}
	if remember {
		c.watches.remember(watchKey{path, watchExist}, ch, gen, watchedRead{exists: r.ok, stat: st})
	}
	return r.ok, st, ch, nil
}

// Create creates a znode with the client's ACL for its path and returns the
// path created (relative to the chroot): for sequential modes, path plus a
// 10-digit counter. The parent must exist (ErrNoNode otherwise; see
// CreateRecursive).
func (c *Client) Create(ctx context.Context, path string, data []byte, mode CreateMode) (string, error) {
	return c.CreateWithACL(ctx, path, data, mode, nil)
}

// CreateWithACL is Create with an explicit ACL (nil: the client's default).
func (c *Client) CreateWithACL(ctx context.Context, path string, data []byte, mode CreateMode, acl []ACL) (string, error) {
	if !mode.valid() {
		return "", opErr("create", path, errors.New("invalid create mode "+mode.String()))
	}
	full, err := c.serverPath("create", path, mode.sequential())
	if err != nil {
		return "", err
	}
	if acl == nil {
		acl = c.aclFor(path)
	}
	zacl := zkACL(acl)
	created, err := run(ctx, c, func() (string, error) {
		return c.conn.Create(full, data, int32(mode), zacl)
	})
	if err != nil {
		return "", c.fail("create", path, err, true)
	}
	return c.root.stripOrSelf(created), nil
}

// Set writes a znode's data if its version matches (AnyVersion: always)
// and returns the new stat, whose Version is the new zkVersion.
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (Stat, error) {
	full, err := c.serverPath("set", path, false)
	if err != nil {
		return Stat{}, err
	}
	s, err := run(ctx, c, func() (*zk.Stat, error) {
		return c.conn.Set(full, data, version)
	})
	if err != nil {
		return Stat{}, c.fail("set", path, err, true)
	}
	return statFrom(s), nil
}

// SetACL replaces a znode's ACL if its ACL version (Stat.Aversion)
// matches (AnyVersion: always), as ZooKeeper's setACL does; the session
// needs the ADMIN permission on it. "/" is the chroot itself.
func (c *Client) SetACL(ctx context.Context, path string, acl []ACL, version int32) (Stat, error) {
	full, err := c.serverPath("setACL", path, false)
	if err != nil {
		return Stat{}, err
	}
	s, err := run(ctx, c, func() (*zk.Stat, error) {
		return c.conn.SetACL(full, zkACL(acl), version)
	})
	if err != nil {
		return Stat{}, c.fail("setACL", path, err, true)
	}
	return statFrom(s), nil
}

// Delete removes a childless znode if its version matches.
func (c *Client) Delete(ctx context.Context, path string, version int32) error {
	full, err := c.serverPath("delete", path, false)
	if err != nil {
		return err
	}
	_, err = run(ctx, c, func() (struct{}, error) {
		return struct{}{}, c.conn.Delete(full, version)
	})
	return c.fail("delete", path, err, true)
}

// Sync makes the server this client talks to catch up with the leader, so
// that reads after it see every write committed before it (ZooKeeper reads
// are otherwise only sequentially consistent per server).
func (c *Client) Sync(ctx context.Context, path string) error {
	full, err := c.serverPath("sync", path, false)
	if err != nil {
		return err
	}
	_, err = run(ctx, c, func() (string, error) { return c.conn.Sync(full) })
	return c.fail("sync", path, err, false)
}
