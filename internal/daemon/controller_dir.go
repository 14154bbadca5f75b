package daemon

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// controllerDirPath holds one ephemeral znode per running kzadmind, named
// by its node.id, whose data is the endpoints that node advertises, in
// Kafka's broker registration JSON (version 5; rack absent).
//
// Why it exists: a client that knows only a standby kzadmind must learn
// from the standby's Metadata where the active controller is. The standby
// knows the active controller's id from /controller, but /controller holds
// only the id, and kzadmind never registers in /brokers/ids (it is not a
// broker; brokers and placement must not see it). Of the ways to learn the
// endpoints this is the simplest that stays correct without touching
// Kafka's znodes: extending /controller would change a znode Kafka owns
// (and that Kafka's own controllers rewrite), and standbys receive no
// UpdateMetadata (only brokers do). Kafka never reads /kzadmin.
//
// The znode is ephemeral, so it lives exactly as long as the session that
// also holds /controller when the node is active: an entry for the id in
// /controller exists whenever that node is up (it publishes before it
// competes for /controller, and again on every new session).
const controllerDirPath = controller.PeerDirPath // the seat logic reads the same entries

func controllerDirEntry(id int32) string {
	return znodes.JoinPath(controllerDirPath, strconv.Itoa(int(id)))
}

// controllerDir publishes this node's endpoints and follows the active
// controller's, for the Metadata a standby answers.
type controllerDir struct {
	zk   *zkadmin.Client
	ctrl *controller.Controller
	self int32
	reg  []byte // this node's entry
	log  zerolog.Logger

	// active is the active controller's node when it is another kzadmind
	// whose entry was read; nil otherwise.
	active atomic.Pointer[controller.BrokerView]
}

func newControllerDir(zk *zkadmin.Client, ctrl *controller.Controller, self int32, endpoints []znodes.Endpoint,
	log zerolog.Logger) (*controllerDir, error) {
	reg, err := znodes.NewBrokerRegistration(endpoints, nil, -1, time.Now()).Encode()
	if err != nil {
		return nil, fmt.Errorf("encode %s entry: %w", controllerDirPath, err)
	}
	return &controllerDir{zk: zk, ctrl: ctrl, self: self, reg: reg, log: log.With().Str("component", "controller-dir").Logger()}, nil
}

// activeNode returns the active controller's node when it is another
// kzadmind with the given id.
func (d *controllerDir) activeNode(id int32) *controller.BrokerView {
	if d == nil {
		return nil
	}
	if b := d.active.Load(); b != nil && b.ID == id {
		return b
	}
	return nil
}

// publish creates this node's entry for the current session. An entry
// left by an earlier session of the same node.id (a restart within the
// session timeout) is replaced.
func (d *controllerDir) publish(ctx context.Context) error {
	path := controllerDirEntry(d.self)
	for attempt := 0; ; attempt++ {
		if attempt == 3 {
			return fmt.Errorf("publish %s: another session keeps re-creating it (a second node with node.id %d?)",
				path, d.self)
		}
		sess := d.zk.Session()
		_, err := d.zk.CreateRecursive(ctx, path, d.reg, zkadmin.Ephemeral)
		if !errors.Is(err, zkadmin.ErrNodeExists) {
			if err != nil {
				return fmt.Errorf("publish %s: %w", path, err)
			}
			return nil
		}
		ok, st, err := d.zk.Exists(ctx, path)
		if err != nil {
			return fmt.Errorf("publish %s: %w", path, err)
		}
		if ok && st.EphemeralOwner == sess.ID {
			return nil
		}
		if ok {
			if err := d.zk.Delete(ctx, path, st.Version); err != nil && !errors.Is(err, zkadmin.ErrNoNode) &&
				!errors.Is(err, zkadmin.ErrBadVersion) {
				return fmt.Errorf("replace stale %s: %w", path, err)
			}
		}
	}
}

// run keeps this node's entry published across sessions and follows the
// active controller's entry, until ctx ends.
func (d *controllerDir) run(ctx context.Context) {
	for ctx.Err() == nil {
		sess := d.zk.Session()
		if err := d.zk.WaitConnected(ctx); err != nil {
			return
		}
		if sess.Expired() {
			continue // a new session came up meanwhile
		}
		if err := d.publish(ctx); err != nil {
			d.log.Warn().Err(err).Msg("could not publish this node's endpoints; retrying")
			if !sleepCtx(ctx, time.Second) {
				return
			}
			continue
		}
		d.follow(ctx, sess)
	}
}

// follow keeps active current until the session ends: it re-reads the
// active controller's entry whenever the controller id changes or the
// entry's watch fires.
func (d *controllerDir) follow(ctx context.Context, sess *zkadmin.Session) {
	for ctx.Err() == nil {
		if !d.followOnce(ctx, sess) {
			return
		}
	}
}

// followOnce reads the entry once and waits for a reason to read it again;
// false means the session or ctx ended.
func (d *controllerDir) followOnce(ctx context.Context, sess *zkadmin.Session) bool {
	id := controllerIDOf(d.ctrl.Snapshot())
	fired, err := d.readActive(ctx, id)
	if err != nil {
		d.log.Debug().Err(err).Int32("controller", id).Msg("reading the active controller's endpoints")
		return sleepCtx(ctx, 100*time.Millisecond)
	}
	wctx, cancel := context.WithCancel(ctx)
	moved := make(chan struct{})
	go func() {
		defer close(moved)
		_, _ = d.ctrl.WaitSnapshot(wctx, func(mv *controller.MetadataView) bool { return controllerIDOf(mv) != id })
	}()
	defer func() { cancel(); <-moved }()
	select {
	case <-ctx.Done():
		return false
	case <-sess.Done():
		return false
	case <-fired:
	case <-moved:
	}
	return true
}

func controllerIDOf(mv *controller.MetadataView) int32 {
	if mv == nil {
		return -1
	}
	return mv.ControllerID
}

// readActive reads the entry of the active controller id (none when it is
// this node or unknown) and returns the watch that fires when it changes.
func (d *controllerDir) readActive(ctx context.Context, id int32) (<-chan zkadmin.Event, error) {
	if id < 0 || id == d.self {
		d.active.Store(nil)
		return nil, nil
	}
	path := controllerDirEntry(id)
	data, _, watch, err := d.zk.GetW(ctx, path)
	if errors.Is(err, zkadmin.ErrNoNode) {
		d.active.Store(nil)
		var ok bool
		ok, _, watch, err = d.zk.ExistsW(ctx, path)
		if err == nil && ok {
			return nil, errors.New("entry appeared while being read") // read again
		}
		return watch, err
	}
	if err != nil {
		return nil, err
	}
	reg, err := znodes.DecodeBrokerRegistration(id, data)
	if err != nil {
		d.active.Store(nil)
		return watch, fmt.Errorf("decode %s: %w", path, err)
	}
	d.active.Store(&controller.BrokerView{ID: id, Epoch: -1, Endpoints: reg.Endpoints, Rack: reg.Rack})
	return watch, nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
