package sasl

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// waitTimeout bounds every wait; reaching it is a failure.
const waitTimeout = 30 * time.Second

// sharedZK is the package's one ZooKeeper, started by the first test that
// needs it.
var sharedZK = zktest.Shared{Options: zkserver.Options{HeapMB: 256}}

func TestMain(m *testing.M) {
	code := m.Run()
	sharedZK.Close()
	os.Exit(code)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// connectZK opens a session under a chroot of this test.
func connectZK(t *testing.T) (*zkadmin.Client, string) {
	t.Helper()
	return sharedZK.Connect(t, "sasl")
}

// putUserConfig writes /config/users/<sanitized user> with cfg, as
// kafka-configs does (the change notification is irrelevant here: the
// credentials are read at each authentication).
func putUserConfig(t *testing.T, zk *zkadmin.Client, user string, cfg map[string]string) {
	t.Helper()
	data, err := znodes.EntityConfig{Config: cfg}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := znodes.ConfigEntityPath(znodes.EntityUsers, znodes.SanitizeEntityName(user))
	ctx := testCtx(t)
	if _, err := zk.Set(ctx, path, data, -1); errors.Is(err, zkadmin.ErrNoNode) {
		_, err = zk.CreateRecursive(ctx, path, data, zkadmin.Persistent)
		if err != nil {
			t.Fatal(err)
		}
	} else if err != nil {
		t.Fatal(err)
	}
}

// serveSASL serves Metadata behind c on loopback and reports each
// request's principal on the returned channel.
func serveSASL(t *testing.T, c Config, tlsServe ...func(*wire.Config)) (string, <-chan wire.Principal) {
	t.Helper()
	sc, err := c.WireConfig()
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan wire.Principal, 16)
	m := wire.NewMux()
	if err := m.HandleFunc(wire.VersionRange{Key: 3, Min: 0, Max: 12}, func(_ context.Context, req *wire.Request) (kmsg.Response, error) {
		seen <- req.Principal
		return req.Body.ResponseKind(), nil
	}); err != nil {
		t.Fatal(err)
	}
	cfg := wire.Config{Mux: m, SASL: sc, Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)}
	for _, f := range tlsServe {
		f(&cfg)
	}
	srv, err := wire.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return ln.Addr().String(), seen
}
