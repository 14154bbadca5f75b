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
	return c.MultiAsync(ctx, ops...).Wait()
}

// FencedMulti is Multi guarded by the controller epoch, as Kafka's
// wrapRequestWithControllerEpochCheck: it prepends a check that
// /controller_epoch still has epochZkVersion. If another controller has
// been elected since, nothing is applied and the error matches
// ErrControllerMoved. A missing /controller_epoch gives ErrNoNode (Kafka
// raises the raw KeeperException). Otherwise the results and errors are
// those of ops, as if the check were not there.
func (c *Client) FencedMulti(ctx context.Context, epochZkVersion int32, ops ...Op) ([]OpResult, error) {
	return c.FencedMultiAsync(ctx, epochZkVersion, ops...).Wait()
}

// PendingMulti is a multi sent by MultiAsync or FencedMultiAsync, whose
// answer Wait returns.
type PendingMulti struct {
	c      *Client
	ctx    context.Context
	ops    []Op
	hidden int
	fenced bool
	epoch  int32
	sent   *sentMulti
	err    error // a failure before sending
}

// MultiAsync sends ops as Multi does but returns once the request is on
// its way: ZooKeeper receives it before any multi this Client sends after
// MultiAsync returns, and applies a session's requests in the order it
// receives them. So a multi may depend on what an earlier one, still
// unanswered, leaves (a version it sets, a znode it creates): if that one
// fails, the later one fails too, as it would have one at a time. The
// outcome is Wait's, as Multi's.
func (c *Client) MultiAsync(ctx context.Context, ops ...Op) *PendingMulti {
	return c.sendMultiAsync(ctx, &PendingMulti{c: c, ctx: ctx, ops: ops})
}

// FencedMultiAsync is FencedMulti sent as MultiAsync sends.
func (c *Client) FencedMultiAsync(ctx context.Context, epochZkVersion int32, ops ...Op) *PendingMulti {
	all := make([]Op, 0, len(ops)+1)
	all = append(all, CheckOp(ControllerEpochPath, epochZkVersion))
	all = append(all, ops...)
	return c.sendMultiAsync(ctx, &PendingMulti{c: c, ctx: ctx, ops: all, hidden: 1, fenced: true, epoch: epochZkVersion})
}

// sendMultiAsync converts and sends m's ops.
func (c *Client) sendMultiAsync(ctx context.Context, m *PendingMulti) *PendingMulti {
	if len(m.ops) == 0 {
		return m
	}
	reqs := make([]any, len(m.ops))
	for i, o := range m.ops {
		r, err := c.toZk(o)
		if err != nil {
			m.err = &MultiError{Index: i - m.hidden, Op: o, Err: err}
			return m
		}
		reqs[i] = r
	}
	if c.isClosed() {
		m.err = opErr("multi", m.ops[0].Path, ErrClosed)
		return m
	}
	m.sent, m.err = c.sendMulti(ctx, reqs)
	if m.err != nil {
		m.err = c.fail("multi", multiLabel(m.ops[m.hidden:]), m.err, true)
	}
	return m
}

// Wait returns the multi's results and error, as Multi (or FencedMulti)
// would have, or the ctx's error should it end first (then the multi may
// still be applied: the error matches ErrConnectionLoss).
func (m *PendingMulti) Wait() ([]OpResult, error) {
	if m.err != nil || m.sent == nil {
		return nil, m.err
	}
	resp, err := m.sent.wait(m.ctx)
	c, ops, hidden := m.c, m.ops, m.hidden
	var res []OpResult
	if err != nil && len(resp) != len(ops) {
		return nil, c.fail("multi", multiLabel(ops[hidden:]), err, true)
	}
	if len(resp) != len(ops) {
		return nil, opErr("multi", multiLabel(ops[hidden:]),
			fmt.Errorf("zookeeper answered %d results for %d ops", len(resp), len(ops)))
	}
	res, err = c.multiResults(ops, resp, hidden)
	if !m.fenced {
		return res, err
	}
	if err == nil {
		return res[1:], nil
	}
	var me *MultiError
	if !errors.As(err, &me) {
		return nil, err
	}
	if me.Index == -1 && errors.Is(me.Err, ErrBadVersion) {
		// The check itself failed.
		me.Err = fmt.Errorf("%w (expected zkVersion %d of %s)", ErrControllerMoved, m.epoch, ControllerEpochPath)
	}
	if res == nil {
		return nil, me
	}
	return res[1:], me
}

// sentMulti is a multi handed to go-zookeeper; done is closed once it
// answered.
type sentMulti struct {
	done chan struct{}
	resp []zk.MultiResponse
	err  error
}

// sendMulti hands reqs to go-zookeeper in this Client's send order (see
// sendOrder) and returns once they are written. go-zookeeper takes no
// context and cannot abort a request, so the call finishes in the
// background (bounded by the connection's own timeouts and by Close,
// which waits for it).
func (c *Client) sendMulti(ctx context.Context, reqs []any) (*sentMulti, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxEnded{err: err}
	}
	if !c.track() {
		return nil, zk.ErrClosing
	}
	m := &sentMulti{done: make(chan struct{})}
	sent := c.order.submit(ctx, func() <-chan struct{} {
		c.requests.Add(1)
		go func() {
			defer c.inflight.Done()
			m.resp, m.err = c.conn.Multi(reqs...)
			close(m.done)
		}()
		return m.done
	})
	if !sent {
		c.inflight.Done()
		return nil, ctxEnded{err: ctx.Err()}
	}
	return m, nil
}

// wait returns go-zookeeper's answer, or the ctx's end first.
func (m *sentMulti) wait(ctx context.Context) ([]zk.MultiResponse, error) {
	select {
	case <-m.done:
		return m.resp, m.err
	case <-ctx.Done():
		select {
		case <-m.done:
			return m.resp, m.err
		default:
		}
		return nil, ctxEnded{err: ctx.Err(), sent: true}
	}
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
