package wire

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// blockingMux serves Metadata with a handler that reports each call on
// started and then waits for release (or its context).
func blockingMux(t *testing.T, started chan<- struct{}, release <-chan struct{}, ctxErr chan<- error) *Mux {
	t.Helper()
	h := HandlerFunc(func(ctx context.Context, req *Request) (kmsg.Response, error) {
		started <- struct{}{}
		select {
		case <-release:
			return req.Body.ResponseKind(), nil
		case <-ctx.Done():
			ctxErr <- ctx.Err()
			return nil, ctx.Err()
		}
	})
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: h})
	return m
}

// TestShutdownDrainsInFlight: Shutdown stops accepting, closes an idle
// connection at once, lets the slow in-flight request finish and its
// response be written, then closes that connection too.
func TestShutdownDrainsInFlight(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	ctxErr := make(chan error, 1)
	s, addr := startServer(t, Config{Mux: blockingMux(t, started, release, ctxErr)})
	busy, idle := dialRaw(t, addr), dialRaw(t, addr)
	// Make sure the idle connection is registered before Shutdown.
	idle.sendReq(kmsg.NewPtrApiVersionsRequest(), 1, nil)
	idle.readResp(18, 0, 1, false)

	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	busy.sendReq(md, 7, nil)
	recv(t, started, "the slow handler")

	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()

	idle.expectClosed()
	waitFor(t, "the listener to close", func() bool {
		nc, err := net.Dial("tcp", addr)
		if err == nil {
			_ = nc.Close()
		}
		return err != nil
	})
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	default:
	}

	close(release)
	busy.readResp(3, 12, 7, true)
	busy.expectClosed()
	if err := recv(t, done, "Shutdown"); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case err := <-ctxErr:
		t.Fatalf("handler context ended early: %v", err)
	default:
	}
}

// TestShutdownContextBoundsWait: a handler that never finishes on its own
// holds Shutdown only until its context ends; then the connection is
// closed and the handler's context cancelled.
func TestShutdownContextBoundsWait(t *testing.T) {
	started, never := make(chan struct{}, 1), make(chan struct{})
	ctxErr := make(chan error, 1)
	s, addr := startServer(t, Config{Mux: blockingMux(t, started, never, ctxErr)})
	c := dialRaw(t, addr)
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 1
	c.sendReq(md, 1, nil)
	recv(t, started, "the handler")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	cancel()
	if err := recv(t, done, "Shutdown"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown = %v, want context.Canceled", err)
	}
	if err := recv(t, ctxErr, "the handler's context"); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler context error %v", err)
	}
	c.expectClosed()
}

func TestShutdownWithNoConnections(t *testing.T) {
	s, addr := startServer(t, Config{})
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if nc, err := net.Dial("tcp", addr); err == nil {
		_ = nc.Close()
		t.Fatal("still accepting after Shutdown")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(ln); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve after Shutdown = %v", err)
	}
}
