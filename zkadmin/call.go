package zkadmin

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"
)

// ctxEnded is what run returns when the context ended first. sent says
// whether the request may have been issued (it was handed to go-zookeeper).
type ctxEnded struct {
	err  error
	sent bool
}

func (e ctxEnded) Error() string { return e.err.Error() }

// run calls f, but returns as soon as ctx ends. go-zookeeper takes no
// context and cannot abort a request, so f then finishes in the background
// (bounded by the connection's own timeouts and by Close, which waits for
// it). A background-free fast path serves contexts that can never end.
func run[T any](ctx context.Context, c *Client, f func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, ctxEnded{err: err}
	}
	c.requests.Add(1)
	if ctx.Done() == nil {
		return f()
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	if !c.track() {
		return zero, zk.ErrClosing
	}
	go func() {
		defer c.inflight.Done()
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctxEnded{err: ctx.Err(), sent: true}
	}
}

// fail maps an error from run or go-zookeeper and names the op and the
// caller's path. For a write whose context ended after it was sent, the
// error also matches ErrConnectionLoss: its outcome is unknown.
func (c *Client) fail(op, path string, err error, write bool) error {
	if err == nil {
		return nil
	}
	var ce ctxEnded
	if errors.As(err, &ce) {
		if write && ce.sent {
			return opErr(op, path, outcomeUnknown{cause: ce.err})
		}
		return opErr(op, path, ce.err)
	}
	if c.isClosed() && (err == zk.ErrConnectionClosed || err == zk.ErrClosing) {
		return opErr(op, path, ErrClosed)
	}
	return opErr(op, path, mapZkError(err))
}

// track counts a background request so Close can wait for it; it refuses
// once Close has begun (a WaitGroup must not grow while being waited on).
func (c *Client) track() bool {
	c.lifeMu.Lock()
	defer c.lifeMu.Unlock()
	if c.isClosed() {
		return false
	}
	c.inflight.Add(1)
	return true
}

func (c *Client) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// serverPath validates a caller path and returns the server-side path.
func (c *Client) serverPath(op, path string, sequential bool) (string, error) {
	if err := validatePath(path, sequential); err != nil {
		return "", opErr(op, path, err)
	}
	if c.isClosed() {
		return "", opErr(op, path, ErrClosed)
	}
	return c.root.full(path), nil
}
