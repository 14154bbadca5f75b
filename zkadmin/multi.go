package zkadmin

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// ControllerEpochPath is the znode whose zkVersion fences controller writes.
const ControllerEpochPath = "/controller_epoch"

// OpKind is the kind of a multi op.
type OpKind uint8

const (
	OpCreate OpKind = iota + 1
	OpSet
	OpDelete
	OpCheck
)

func (k OpKind) String() string {
	switch k {
	case OpCreate:
		return "create"
	case OpSet:
		return "set"
	case OpDelete:
		return "delete"
	case OpCheck:
		return "check"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Op is one operation of a multi. It is a plain value so that code which
// decides what to write (the controller's state machines) can return ops
// and tests can compare them. Build it with CreateOp, SetOp, DeleteOp or
// CheckOp.
type Op struct {
	Kind    OpKind
	Path    string // relative to the chroot
	Data    []byte // create, set
	Version int32  // set, delete, check; AnyVersion matches all
	Mode    CreateMode
	ACL     []ACL // create; nil means the client's ACL for Path
}

// CreateOp creates a znode.
func CreateOp(path string, data []byte, mode CreateMode) Op {
	return Op{Kind: OpCreate, Path: path, Data: data, Mode: mode}
}

// SetOp writes data if the version matches.
func SetOp(path string, data []byte, version int32) Op {
	return Op{Kind: OpSet, Path: path, Data: data, Version: version}
}

// DeleteOp deletes a childless znode if the version matches.
func DeleteOp(path string, version int32) Op {
	return Op{Kind: OpDelete, Path: path, Version: version}
}

// CheckOp fails the multi unless the znode has this version.
func CheckOp(path string, version int32) Op {
	return Op{Kind: OpCheck, Path: path, Version: version}
}

func (o Op) String() string { return o.Kind.String() + " " + o.Path }

// OpResult is the outcome of one op of a multi, in the ops' order.
type OpResult struct {
	// Path is the znode the op touched, relative to the chroot; for a
	// sequential create, the name the server chose.
	Path string
	// Stat is set for a SetOp that succeeded.
	Stat Stat
	// Err is nil when the multi succeeded. When it failed, the failing op
	// has its own error and every other op ErrRolledBack.
	Err error
}

// toZk validates an op and converts it to a go-zookeeper request with the
// server-side path.
func (c *Client) toZk(o Op) (any, error) {
	if err := validatePath(o.Path, o.Kind == OpCreate && o.Mode.sequential()); err != nil {
		return nil, err
	}
	full := c.root.full(o.Path)
	switch o.Kind {
	case OpCreate:
		if !o.Mode.valid() {
			return nil, errors.New("invalid create mode " + o.Mode.String())
		}
		acl := o.ACL
		if acl == nil {
			acl = c.aclFor(o.Path)
		}
		return &zk.CreateRequest{Path: full, Data: o.Data, Acl: zkACL(acl), Flags: int32(o.Mode)}, nil
	case OpSet:
		return &zk.SetDataRequest{Path: full, Data: o.Data, Version: o.Version}, nil
	case OpDelete:
		return &zk.DeleteRequest{Path: full, Version: o.Version}, nil
	case OpCheck:
		return &zk.CheckVersionRequest{Path: full, Version: o.Version}, nil
	}
	return nil, fmt.Errorf("unknown op kind %d", o.Kind)
}

// Multi applies ops atomically: all or none. On failure the error is a
// *MultiError naming the failing op's index and wrapping its error (so
// errors.Is(err, ErrBadVersion) works), and the results say the same per op.
// Errors that concern the whole request (connection loss, session expiry,
// ctx) come back as an *OpError with nil results.
func (c *Client) Multi(ctx context.Context, ops ...Op) ([]OpResult, error) {
	return c.multi(ctx, ops, 0)
}

// FencedMulti is Multi guarded by the controller epoch, as Kafka's
// wrapRequestWithControllerEpochCheck: it prepends a check that
// /controller_epoch still has epochZkVersion. If another controller has
// been elected since, nothing is applied and the error matches
// ErrControllerMoved. A missing /controller_epoch gives ErrNoNode (Kafka
// raises the raw KeeperException). Otherwise the results and errors are
// those of ops, as if the check were not there.
func (c *Client) FencedMulti(ctx context.Context, epochZkVersion int32, ops ...Op) ([]OpResult, error) {
	all := make([]Op, 0, len(ops)+1)
	all = append(all, CheckOp(ControllerEpochPath, epochZkVersion))
	all = append(all, ops...)
	res, err := c.multi(ctx, all, 1)
	if err == nil {
		return res[1:], nil
	}
	var me *MultiError
	if !errors.As(err, &me) {
		return nil, err
	}
	if me.Index == -1 {
		// The check itself failed.
		if errors.Is(me.Err, ErrBadVersion) {
			me.Err = fmt.Errorf("%w (expected zkVersion %d of %s)", ErrControllerMoved, epochZkVersion, ControllerEpochPath)
		}
	}
	if res == nil {
		return nil, me
	}
	return res[1:], me
}

// multi runs ops; the first `hidden` of them were added by this package,
// so reported indexes are shifted down by that many.
func (c *Client) multi(ctx context.Context, ops []Op, hidden int) ([]OpResult, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	reqs := make([]any, len(ops))
	for i, o := range ops {
		r, err := c.toZk(o)
		if err != nil {
			return nil, &MultiError{Index: i - hidden, Op: o, Err: err}
		}
		reqs[i] = r
	}
	if c.isClosed() {
		return nil, opErr("multi", ops[0].Path, ErrClosed)
	}
	resp, err := run(ctx, c, func() ([]zk.MultiResponse, error) {
		return c.conn.Multi(reqs...)
	})
	if err != nil && len(resp) != len(ops) {
		return nil, c.fail("multi", multiLabel(ops[hidden:]), err, true)
	}
	if len(resp) != len(ops) {
		return nil, opErr("multi", multiLabel(ops[hidden:]),
			fmt.Errorf("zookeeper answered %d results for %d ops", len(resp), len(ops)))
	}
	return c.multiResults(ops, resp, hidden)
}

// multiResults converts a complete multi response. When a multi fails,
// ZooKeeper answers OK for the ops before the failing one, its error code
// for the failing one and RUNTIMEINCONSISTENCY for the rest, so the first
// error is the cause.
func (c *Client) multiResults(ops []Op, resp []zk.MultiResponse, hidden int) ([]OpResult, error) {
	res := make([]OpResult, len(ops))
	var failed *MultiError
	for i, r := range resp {
		if r.Error != nil {
			failed = &MultiError{Index: i - hidden, Op: ops[i], Err: mapZkError(r.Error)}
			break
		}
		res[i] = OpResult{Path: ops[i].Path, Stat: statFrom(r.Stat)}
		if ops[i].Kind == OpCreate && r.String != "" {
			res[i].Path = c.root.stripOrSelf(r.String)
		}
	}
	if failed == nil {
		return res, nil
	}
	res[failed.Index+hidden] = OpResult{Path: ops[failed.Index+hidden].Path, Err: failed.Err}
	for i := range res {
		if i != failed.Index+hidden {
			res[i] = OpResult{Path: ops[i].Path, Err: ErrRolledBack}
		}
	}
	return res, failed
}

// multiLabel names a multi in an error: its first op's path and size.
func multiLabel(ops []Op) string {
	if len(ops) == 0 {
		return "(empty)"
	}
	if len(ops) == 1 {
		return ops[0].Path
	}
	return fmt.Sprintf("%s (+%d more ops)", ops[0].Path, len(ops)-1)
}
