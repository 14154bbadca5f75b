package kdc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKDC: two KDCs side by side, each issuing tickets to the real kinit
// for a keytab's principal and for a password's.
func TestKDC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	var kdcs []*KDC
	for _, realm := range []string{"", "OTHER.TEST"} {
		k, err := Start(ctx, Options{Dir: filepath.Join(dir, "kdc"+realm), Realm: realm})
		if err != nil {
			t.Fatal(err)
		}
		defer k.Stop()
		kdcs = append(kdcs, k)
	}
	if kdcs[0].Addr() == kdcs[1].Addr() || kdcs[0].Realm() != "EXAMPLE.COM" {
		t.Fatalf("KDCs at %s (%s) and %s", kdcs[0].Addr(), kdcs[0].Realm(), kdcs[1].Addr())
	}
	for i, k := range kdcs {
		keytab := filepath.Join(dir, k.Realm()+".keytab")
		if err := k.AddPrincipal(ctx, "kafka/localhost", keytab); err != nil {
			t.Fatal(err)
		}
		if err := k.AddPrincipalWithPassword(ctx, "alice", "alice-secret"); err != nil {
			t.Fatal(err)
		}
		cache := "FILE:" + filepath.Join(dir, k.Realm()+".cc")
		krb := func(stdin string, name string, args ...string) string {
			t.Helper()
			cmd := exec.CommandContext(ctx, name, args...)
			cmd.Env = append(os.Environ(), append(k.Env(), "KRB5CCNAME="+cache)...)
			cmd.Stdin = strings.NewReader(stdin)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("KDC %d: %s %v: %v\n%s", i, name, args, err, out)
			}
			return string(out)
		}
		principal := "kafka/localhost@" + k.Realm()
		krb("", "kinit", "-kt", keytab, principal)
		if out := krb("", "klist"); !strings.Contains(out, principal) {
			t.Fatalf("KDC %d: klist after kinit -kt:\n%s", i, out)
		}
		krb("alice-secret\n", "kinit", "alice@"+k.Realm())
		if out := krb("", "klist"); !strings.Contains(out, "alice@"+k.Realm()) {
			t.Fatalf("KDC %d: klist after kinit with a password:\n%s", i, out)
		}
	}
}
