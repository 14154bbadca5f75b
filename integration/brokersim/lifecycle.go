package brokersim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// ErrNotRunning is returned by Shutdown on a broker that is not running.
var ErrNotRunning = errors.New("brokersim: broker is not running")

// boot starts an incarnation: listen, open a ZooKeeper session, serve, and
// register. prevSession is the session of a crashed predecessor whose
// registration may still be there. Caller holds lifeMu.
func (b *Broker) boot(ctx context.Context, prevSession int64) error {
	ln, err := b.listen()
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	dialer := &cutDialer{}
	zk, err := zkadmin.Connect(ctx, zkadmin.Options{
		Servers:        b.set.ZooKeeperServers,
		Chroot:         b.set.Chroot,
		SessionTimeout: b.set.SessionTimeout,
		Logger:         b.log,
		Dialer:         dialer.dial,
	})
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("broker %d: %w", b.id, err)
	}
	srv, err := wire.New(wire.Config{Mux: b.mux, Logger: b.log})
	if err != nil {
		_ = ln.Close()
		zk.Close()
		return fmt.Errorf("broker %d: %w", b.id, err)
	}
	inc := &incarnation{zk: zk, dialer: dialer, srv: srv, port: port,
		alterSignal: make(chan struct{}, 1), ctrlSignal: make(chan struct{}, 1)}
	inc.ctx, inc.cancel = context.WithCancel(context.Background())
	inc.wg.Go(func() { _ = srv.Serve(ln) })
	b.mu.Lock()
	b.inc, b.port = inc, port
	b.mu.Unlock()

	data, err := registrationData(b.set.Host, port, b.rack, time.Now())
	var epoch int64
	if err == nil {
		epoch, err = register(ctx, zk, b.id, data, prevSession)
	}
	if err != nil {
		b.halt(inc, false)
		return err
	}
	b.mu.Lock()
	b.epoch, b.status = epoch, Running
	b.updateFetchLocked()
	b.bumpLocked()
	b.mu.Unlock()
	b.log.Info().Int64("epoch", epoch).Int("port", port).Msg("broker registered")
	inc.wg.Go(func() { b.watchLoop(inc) })
	inc.wg.Go(func() { b.alterLoop(inc) })
	b.cluster.nudgeLeaders(b.id)
	return nil
}

// listen binds the broker's port, or a free one when it has none or the
// old one is taken.
func (b *Broker) listen() (net.Listener, error) {
	b.mu.Lock()
	port := b.port
	b.mu.Unlock()
	ln, err := net.Listen("tcp", net.JoinHostPort(b.set.Host, strconv.Itoa(port)))
	if err != nil && port != 0 {
		b.log.Warn().Err(err).Int("port", port).Msg("port taken, listening on a free one")
		ln, err = net.Listen("tcp", net.JoinHostPort(b.set.Host, "0"))
	}
	if err != nil {
		return nil, fmt.Errorf("broker %d: listen: %w", b.id, err)
	}
	return ln, nil
}

// halt ends an incarnation: the listener and connections close and the
// goroutines stop. With crash, the ZooKeeper sockets are cut and the client
// kept (its session expires on the server); otherwise the session is
// closed, which deletes the registration at once. Caller holds lifeMu.
func (b *Broker) halt(inc *incarnation, crash bool) {
	if crash {
		inc.dialer.cutOff()
	}
	_ = inc.srv.Close()
	inc.cancel()
	if !crash {
		inc.zk.Close()
	}
	inc.wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inc = nil
	b.status = Stopped
	if crash {
		b.status = Crashed
		b.crashedZK = inc.zk
	}
	if b.paused != nil {
		close(b.paused)
		b.paused = nil
	}
	for _, r := range b.replicas.all() {
		r.pending = nil
	}
	b.alterQueue = nil
	b.updateFetchLocked()
	b.bumpLocked()
}

// Kill stops the broker abruptly: the listener and its connections close
// and the ZooKeeper session is closed, so the registration vanishes at
// once. The replica state stays readable until Restart. Killing a broker
// that is not running does nothing.
func (b *Broker) Kill() {
	b.lifeMu.Lock()
	defer b.lifeMu.Unlock()
	if inc := b.inc; inc != nil {
		b.halt(inc, false)
		b.log.Info().Msg("broker killed")
	}
}

// Crash stops the broker like kill -9 on a lost machine: every socket is
// cut, nothing more is answered or sent, and the ZooKeeper session is left
// to expire, so the registration vanishes only after the session timeout.
// Crashing a broker that is not running does nothing.
func (b *Broker) Crash() {
	b.lifeMu.Lock()
	defer b.lifeMu.Unlock()
	if inc := b.inc; inc != nil {
		b.halt(inc, true)
		b.log.Info().Msg("broker crashed")
	}
}

// Restart starts the broker again, as a new process: a new ZooKeeper
// session and so a new broker epoch, an empty replica state and metadata
// cache, and the same log. A running broker is killed first. After a
// Crash, Restart waits (bounded by ctx) for the old session to expire and
// its registration to vanish.
func (b *Broker) Restart(ctx context.Context) error {
	b.lifeMu.Lock()
	defer b.lifeMu.Unlock()
	if inc := b.inc; inc != nil {
		b.halt(inc, false)
	}
	var prevSession int64
	if zk := b.crashedZK; zk != nil {
		prevSession = zk.SessionID()
		b.crashedZK = nil
		b.cluster.bg.Go(zk.Close)
	}
	b.mu.Lock()
	b.resetLocked()
	b.bumpLocked()
	b.mu.Unlock()
	if err := b.boot(ctx, prevSession); err != nil {
		return fmt.Errorf("restart broker %d: %w", b.id, err)
	}
	return nil
}

// DisconnectZooKeeper cuts the broker off from ZooKeeper (a network
// partition between them) while it keeps serving Kafka requests. If the
// cut outlasts the session timeout, the session expires and the
// registration vanishes; after ReconnectZooKeeper the broker then
// registers again with a new epoch, as Kafka does.
func (b *Broker) DisconnectZooKeeper() {
	b.lifeMu.Lock()
	defer b.lifeMu.Unlock()
	if inc := b.inc; inc != nil {
		inc.dialer.cutOff()
	}
}

// ReconnectZooKeeper ends DisconnectZooKeeper.
func (b *Broker) ReconnectZooKeeper() {
	b.lifeMu.Lock()
	defer b.lifeMu.Unlock()
	if inc := b.inc; inc != nil {
		inc.dialer.restore()
	}
}

// Pause makes the broker stop answering requests and stop sending to the
// controller; requests wait until Resume. Its ZooKeeper session stays
// alive (use Crash for a broker whose session should expire). As a
// follower it counts as not fetching.
func (b *Broker) Pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paused == nil {
		b.paused = make(chan struct{})
		b.updateFetchLocked()
		b.bumpLocked()
	}
}

// Resume undoes Pause.
func (b *Broker) Resume() {
	b.mu.Lock()
	if b.paused != nil {
		close(b.paused)
		b.paused = nil
		b.updateFetchLocked()
		b.bumpLocked()
	}
	b.mu.Unlock()
	b.cluster.nudgeLeaders(b.id)
}

// waitResumed blocks while the broker is paused.
func (b *Broker) waitResumed(ctx context.Context) error {
	b.mu.Lock()
	ch := b.paused
	b.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sleepCtx waits d; it reports false if ctx ended first.
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
