package zkadmin

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Sentinel errors. Every error this package returns wraps one of them (or a
// context error) inside an *OpError or *MultiError that names the operation
// and the path, so callers branch with errors.Is and log the message as is.
var (
	// ErrNoNode: the znode (or, for a create, its parent) does not exist.
	ErrNoNode = errors.New("node does not exist")
	// ErrNodeExists: a create found the znode already there.
	ErrNodeExists = errors.New("node already exists")
	// ErrBadVersion: the expected version did not match the znode's.
	ErrBadVersion = errors.New("version conflict")
	// ErrNotEmpty: a delete found children under the znode.
	ErrNotEmpty = errors.New("node has children")
	// ErrNoChildrenForEphemerals: a create tried to put a child under an
	// ephemeral znode.
	ErrNoChildrenForEphemerals = errors.New("ephemeral nodes may not have children")
	// ErrNoAuth: the ACL of the znode refuses this session.
	ErrNoAuth = errors.New("not authorized")
	// ErrInvalidACL: the ACL given to a create is malformed.
	ErrInvalidACL = errors.New("invalid ACL")
	// ErrInvalidPath: the path is not a valid ZooKeeper path.
	ErrInvalidPath = errors.New("invalid path")
	// ErrSessionExpired: the ZooKeeper session ended. Its ephemeral znodes
	// are gone and its watches will not fire. A write that was pending when
	// it happened may or may not have been applied. The client opens a new
	// session by itself; a controller must resign (see Client.Session).
	ErrSessionExpired = errors.New("session expired")
	// ErrConnectionLoss: the request could not be completed on a live
	// connection, so its outcome is unknown. The caller must re-read before
	// retrying a write (use versioned writes so a retry cannot clobber).
	// A write abandoned because its context ended also matches it.
	ErrConnectionLoss = errors.New("connection lost; outcome unknown")
	// ErrControllerMoved: the fencing check of a FencedMulti failed, i.e.
	// /controller_epoch no longer has the zkVersion this controller won at
	// election. Nothing in the multi was applied. Kafka raises
	// ControllerMovedException (STALE_CONTROLLER_EPOCH, 11) here.
	ErrControllerMoved = errors.New("controller moved: controller epoch zkVersion changed")
	// ErrRolledBack marks, in a failed multi, every op other than the one
	// that failed: it was not applied either.
	ErrRolledBack = errors.New("rolled back: another op of the multi failed")
	// ErrNotAttempted marks ops of a batched write that were never sent
	// because the write stopped early (fencing failed or ctx ended).
	ErrNotAttempted = errors.New("not attempted")
	// ErrClosed: the Client was closed.
	ErrClosed = errors.New("client closed")
	// ErrAuthFailed: the server refused the session's credentials.
	ErrAuthFailed = errors.New("authentication failed")
)

// OpError is the error of one ZooKeeper operation, in the manner of
// os.PathError. Path is the caller's path (without the chroot).
type OpError struct {
	Op   string // "get", "create", "set", "delete", "children", "exists", "multi", ...
	Path string
	Err  error
}

func (e *OpError) Error() string { return "zk " + e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *OpError) Unwrap() error { return e.Err }

// MultiError reports which op of a failed multi failed and why. Index is the
// position in the ops the caller passed (a fencing check the package added
// is not counted). Unwrap gives the failing op's error, so
// errors.Is(err, ErrNodeExists) works on the multi's error too.
type MultiError struct {
	Index int
	Op    Op
	Err   error
}

func (e *MultiError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("zk multi: fencing %s %s failed: %v", e.Op.Kind, e.Op.Path, e.Err)
	}
	return fmt.Sprintf("zk multi: op %d (%s %s) failed: %v", e.Index, e.Op.Kind, e.Op.Path, e.Err)
}
func (e *MultiError) Unwrap() error { return e.Err }

// outcomeUnknown is what a write gets when its context ends while the request
// may already be on the wire: it is the context error, and it also matches
// ErrConnectionLoss, because the caller faces the same "re-read before
// retrying" situation.
type outcomeUnknown struct{ cause error }

func (e outcomeUnknown) Error() string        { return e.cause.Error() + " (outcome unknown)" }
func (e outcomeUnknown) Unwrap() error        { return e.cause }
func (e outcomeUnknown) Is(target error) bool { return target == ErrConnectionLoss }

// mapZkError translates a go-zookeeper error into this package's sentinels.
// Unknown errors keep their text but not their identity, so callers never
// branch on go-zookeeper's types.
func mapZkError(err error) error {
	switch err {
	case nil:
		return nil
	case zk.ErrNoNode:
		return ErrNoNode
	case zk.ErrNodeExists:
		return ErrNodeExists
	case zk.ErrBadVersion:
		return ErrBadVersion
	case zk.ErrNotEmpty:
		return ErrNotEmpty
	case zk.ErrNoChildrenForEphemerals:
		return ErrNoChildrenForEphemerals
	case zk.ErrNoAuth:
		return ErrNoAuth
	case zk.ErrInvalidACL:
		return ErrInvalidACL
	case zk.ErrInvalidPath:
		return ErrInvalidPath
	case zk.ErrSessionExpired:
		return ErrSessionExpired
	case zk.ErrAuthFailed:
		return ErrAuthFailed
	case zk.ErrConnectionClosed, zk.ErrNoServer, zk.ErrSessionMoved:
		// ErrNoServer: the request sat unsent while no server answered.
		// ErrSessionMoved: another server owns the session now. Either way
		// the request may or may not have run.
		return ErrConnectionLoss
	case zk.ErrClosing:
		return ErrClosed
	}
	return fmt.Errorf("zookeeper: %v", err)
}

// opErr wraps err (already mapped) with the op and the caller's path.
func opErr(op, path string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Path: path, Err: err}
}
