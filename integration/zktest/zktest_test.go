package zktest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

var sharedZK = Shared{SessionTimeout: 4 * time.Second}

func TestMain(m *testing.M) { os.Exit(sharedZK.Run(m)) }

// TestChrootUniquePerCall: every call names a new chroot below the prefix,
// with the test's name made path-safe.
func TestChrootUniquePerCall(t *testing.T) {
	var s Shared
	a, b := s.Chroot(t, "p"), s.Chroot(t, "p")
	if a == b || !strings.HasPrefix(a, "/p/TestChrootUniquePerCall-") {
		t.Fatalf("chroots %q, %q", a, b)
	}
	t.Run("sub test", func(t *testing.T) {
		if c := s.Chroot(t, "p"); strings.Count(c, "/") != 2 || strings.Contains(c, " ") {
			t.Fatalf("chroot %q", c)
		}
	})
}

// TestStartOnceAndConnectWith: Start from TestMain and Server from a test
// give the same server; ConnectWith through its address with TopLevel
// lays out Kafka's top-level znodes under the chroot only.
func TestStartOnceAndConnectWith(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	srv, err := sharedZK.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again := sharedZK.Server(t); again != srv {
		t.Fatalf("a second server started")
	}
	chroot := sharedZK.Chroot(t, "zktest")
	c := sharedZK.ConnectWith(t, chroot, Session{Addr: srv.Addr(), Timeout: 2 * time.Second, TopLevel: true})
	if ok, _, err := c.Exists(ctx, znodes.BrokerIDsPath); err != nil || !ok {
		t.Fatalf("%s under %s: exists %v, %v", znodes.BrokerIDsPath, chroot, ok, err)
	}
	other, _ := sharedZK.Connect(t, "zktest")
	if ok, _, err := other.Exists(ctx, znodes.BrokerIDsPath); err != nil || ok {
		t.Fatalf("%s in another chroot: exists %v, %v", znodes.BrokerIDsPath, ok, err)
	}
	same := sharedZK.ConnectAt(t, chroot)
	if ok, _, err := same.Exists(ctx, znodes.BrokerIDsPath); err != nil || !ok {
		t.Fatalf("%s through a second session: exists %v, %v", znodes.BrokerIDsPath, ok, err)
	}
}
