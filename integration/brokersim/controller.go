package brokersim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// errNoController: neither /controller, the metadata cache nor
// Options.ControllerAddr gives an address to send to.
var errNoController = errors.New("brokersim: controller unknown")

// zkRetryPause spaces out retries after a ZooKeeper error that is not a
// session change, so a persistent failure cannot spin.
const zkRetryPause = 200 * time.Millisecond

// watchLoop watches /controller for the controller id and the session for
// expiry, after which it registers again (a new broker epoch), as Kafka's
// broker does on a new session.
func (b *Broker) watchLoop(inc *incarnation) {
	ctx := inc.ctx
	for ctx.Err() == nil {
		sess := inc.zk.Session()
		ch, err := b.readController(inc)
		if err != nil {
			b.log.Debug().Err(err).Msg("reading /controller failed; retrying")
			if inc.zk.WaitConnected(ctx) != nil || !sleepCtx(ctx, zkRetryPause) {
				return
			}
		} else {
			select {
			case <-ch:
			case <-sess.Done():
			case <-ctx.Done():
				return
			}
		}
		if sess.Expired() && !b.reRegister(inc) {
			return
		}
	}
}

// readController reads /controller, records its broker id (-1 when it is
// missing or unreadable, as Kafka's getControllerId) and returns the watch.
func (b *Broker) readController(inc *incarnation) (<-chan zkadmin.Event, error) {
	exists, _, ch, err := inc.zk.ExistsW(inc.ctx, znodes.ControllerPath)
	if err != nil {
		return nil, err
	}
	id := int32(-1)
	if exists {
		data, _, err := inc.zk.Get(inc.ctx, znodes.ControllerPath)
		switch {
		case err == nil:
			if reg, err := znodes.DecodeControllerRegistration(data); err == nil {
				id = reg.BrokerID
			}
		case !errors.Is(err, zkadmin.ErrNoNode):
			return nil, err
		}
	}
	b.mu.Lock()
	if b.zkControllerID != id {
		b.zkControllerID = id
		notify(inc.ctrlSignal)
		b.bumpLocked()
	}
	b.mu.Unlock()
	return ch, nil
}

// reRegister registers again after the session expired; it returns false
// once the incarnation ends.
func (b *Broker) reRegister(inc *incarnation) bool {
	for {
		if inc.zk.WaitConnected(inc.ctx) != nil {
			return false
		}
		data, err := registrationData(b.set.Host, inc.port, b.rack, time.Now())
		var epoch int64
		if err == nil {
			epoch, err = register(inc.ctx, inc.zk, b.id, data, 0)
		}
		if err == nil {
			b.mu.Lock()
			b.epoch = epoch
			b.bumpLocked()
			b.mu.Unlock()
			b.log.Info().Int64("epoch", epoch).Msg("session expired; broker registered again")
			return true
		}
		if inc.ctx.Err() != nil {
			return false
		}
		b.log.Warn().Err(err).Msg("registering again after session expiry failed; retrying")
		if !sleepCtx(inc.ctx, zkRetryPause) {
			return false
		}
	}
}

// dialController connects to the controller within the request timeout;
// with negotiate it first runs ApiVersions, as Kafka's broker-to-controller
// channel does (ControlledShutdown skips it).
func (b *Broker) dialController(ctx context.Context, addr string, negotiate bool) (*kafkaconn.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, b.set.RequestTimeout)
	defer cancel()
	c, err := dialKafka(ctx, addr, fmt.Sprintf("broker-%d", b.id), b.set.RequestTimeout)
	if err != nil {
		return nil, err
	}
	if negotiate {
		b.countSent(18)
		if err := c.Negotiate(ctx); err != nil {
			_ = c.Close()
			return nil, err
		}
	}
	return c, nil
}

// countSent counts a request sent to the controller.
func (b *Broker) countSent(key int16) {
	b.mu.Lock()
	b.sent[key]++
	b.bumpLocked()
	b.mu.Unlock()
}
