package security

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/security/scram"
)

// TestKzadminConfigsUsersCredentialsAuthenticate: SCRAM credentials made
// by `kzadmin configs --entity-type users` authenticate against kzadmind's
// SCRAM listener and against a real Kafka 3.9 broker's, for both
// mechanisms; a wrong password fails on both; a deleted mechanism stops
// authenticating.
func TestKzadminConfigsUsersCredentialsAuthenticate(t *testing.T) {
	zk, chroot := connectZK(t)
	ctx := testCtx(t)
	if err := zk.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	kzadmin := func(args ...string) {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append(args, "--zookeeper", zookeeper(t).Addr()+chroot)
		if code := cli.Run(ctx, args, &out, &errOut, cli.Options{}); code != 0 {
			t.Fatalf("kzadmin %v: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
	kzadmin("configs", "alter", "--entity-type", "users", "--entity-name", "alice", "--add-config",
		"SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]")

	l, err := NewListener(ListenerOptions{Name: "SASL_PLAINTEXT", Protocol: "SASL_PLAINTEXT", SCRAM: sasl.ZKCredentials{ZK: zk}.Lookup,
		Props: MapGetter(map[string]string{"sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
			"connection.failed.authentication.delay.ms": "0"})})
	if err != nil {
		t.Fatal(err)
	}
	ours := serveSelf(t, l)
	for _, m := range scram.Mechanisms() {
		if err := scramMetadata(t, ours, m, "alice", "alice-secret"); err != nil {
			t.Errorf("%s against kzadmind's listener: %v", m, err)
		}
		if err := scramMetadata(t, ours, m, "alice", "wrong"); !errors.Is(err, kerr.SaslAuthenticationFailed) {
			t.Errorf("%s wrong password against kzadmind's listener: %v", m, err)
		}
	}

	t.Run("real Kafka broker", func(t *testing.T) {
		kafka.SkipIfHeavyDisabled(t)
		addr := startSCRAMBroker(t, ctx, chroot)
		checkSCRAMLogins(t, addr, "alice", "alice-secret")
		// The broker follows the change notification: a deleted
		// mechanism stops authenticating there.
		kzadmin("configs", "alter", "--entity-type", "users", "--entity-name", "alice", "--delete-config", "SCRAM-SHA-512")
		waitForCond(t, "Kafka to drop alice's SCRAM-SHA-512 credential", func() bool {
			return scramMetadata(t, addr, scram.SHA512, "alice", "alice-secret") != nil
		})
		if err := scramMetadata(t, addr, scram.SHA256, "alice", "alice-secret"); err != nil {
			t.Errorf("SCRAM-SHA-256 after deleting SCRAM-SHA-512: %v", err)
		}
	})
}

// waitForCond polls cond, which reads state another process changes
// asynchronously, until it holds or a minute passes.
func waitForCond(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond) // poll interval for a condition with a deadline
	}
}
