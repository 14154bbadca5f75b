package brokersim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// IDInUseError means another live session holds /brokers/ids/<id>. Kafka
// fails its start-up the same way.
type IDInUseError struct {
	ID    int32
	Owner int64 // the ephemeral owner's session id
}

func (e *IDInUseError) Error() string {
	return fmt.Sprintf("broker id %d is registered by another session (0x%x)", e.ID, e.Owner)
}

// registrationData is what a Kafka 3.9 broker with one PLAINTEXT listener
// writes: version 5, host and port of that endpoint, jmx_port -1 (no JMX),
// the endpoint and its protocol map, the rack when set, and no features.
func registrationData(host string, port int, rack string, now time.Time) ([]byte, error) {
	ep := znodes.Endpoint{Listener: ListenerName, Host: host, Port: int32(port),
		SecurityProtocol: znodes.ProtocolPlaintext}
	var r *string
	if rack != "" {
		r = &rack
	}
	return znodes.NewBrokerRegistration([]znodes.Endpoint{ep}, r, -1, now).Encode()
}

// register is Kafka's checked ephemeral create (znodes reference §3.2): a
// multi of create(path, null, EPHEMERAL) and setData(path, data, 0), whose
// setData result carries the czxid, the broker epoch. A node left by this
// client's session is taken as ours (a retry after connection loss); one
// left by prevSession (our own crashed incarnation) is waited out until
// its session expires; any other owner is an IDInUseError.
func register(ctx context.Context, zk *zkadmin.Client, id int32, data []byte, prevSession int64) (int64, error) {
	path := znodes.BrokerIDPath(id)
	for {
		res, err := zk.Multi(ctx, zkadmin.CreateOp(path, nil, zkadmin.Ephemeral), zkadmin.SetOp(path, data, 0))
		if err == nil {
			return res[1].Stat.Czxid, nil
		}
		switch {
		case errors.Is(err, zkadmin.ErrNodeExists):
			epoch, done, err := checkExisting(ctx, zk, id, prevSession)
			if done || err != nil {
				return epoch, err
			}
		case transientZK(err) && ctx.Err() == nil:
			if err := zk.WaitConnected(ctx); err != nil {
				return 0, fmt.Errorf("register broker %d: %w", id, err)
			}
		default:
			return 0, fmt.Errorf("register broker %d: %w", id, err)
		}
	}
}

// checkExisting handles NODEEXISTS: done reports whether the registration
// is settled (ours), otherwise the caller tries the create again.
func checkExisting(ctx context.Context, zk *zkadmin.Client, id int32, prevSession int64) (int64, bool, error) {
	path := znodes.BrokerIDPath(id)
	exists, stat, ch, err := zk.ExistsW(ctx, path)
	if err != nil {
		return 0, false, fmt.Errorf("register broker %d: %w", id, err)
	}
	switch {
	case !exists:
		return 0, false, nil
	case stat.EphemeralOwner == zk.SessionID():
		return stat.Czxid, true, nil
	case prevSession == 0 || stat.EphemeralOwner != prevSession:
		return 0, true, &IDInUseError{ID: id, Owner: stat.EphemeralOwner}
	}
	select {
	case <-ch: // deleted (the old session expired), or the watch ended
		return 0, false, nil
	case <-ctx.Done():
		return 0, true, fmt.Errorf("register broker %d: waiting for the registration of crashed session 0x%x to expire: %w",
			id, prevSession, ctx.Err())
	}
}

// transientZK reports errors after which a request can be retried once
// the client has a session again.
func transientZK(err error) bool {
	return errors.Is(err, zkadmin.ErrConnectionLoss) || errors.Is(err, zkadmin.ErrSessionExpired)
}

// cutDialer dials ZooKeeper for one broker and can cut it off: Crash and
// DisconnectZooKeeper close its connections and refuse new ones, so the
// session is neither closed nor kept alive and the server expires it.
type cutDialer struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

var errCut = errors.New("brokersim: broker crashed")

func (d *cutDialer) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cut {
		return nil, errCut
	}
	nc, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	d.conns = append(d.conns, nc)
	return nc, nil
}

// restore lets the client reconnect after cutOff.
func (d *cutDialer) restore() {
	d.mu.Lock()
	d.cut = false
	d.mu.Unlock()
}

func (d *cutDialer) cutOff() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cut = true
	for _, nc := range d.conns {
		_ = nc.Close()
	}
	d.conns = nil
}
