package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestZooKeeperACLsFromConfigFile: with zookeeper.set.acl=true and
// kzadmin.zookeeper.digest in --config-file, kzadmin --zookeeper creates
// znodes as Kafka's brokers and kzadmind do: owned by the digest identity,
// readable by all but the sensitive ones, so that a session without the
// identity can read a topic but not change it, and cannot read a user's
// credentials. Without the digest, set.acl is refused before anything is
// written.
func TestZooKeeperACLsFromConfigFile(t *testing.T) {
	c := newCluster(t, "r1")
	dir := t.TempDir()
	conf := filepath.Join(dir, "kzadmin.properties")
	if err := os.WriteFile(conf, []byte("zookeeper.set.acl=true\nkzadmin.zookeeper.digest=ops:ops-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.want(0, []string{"Created topic secured."}, "topics", "create", "--topic", "secured", "--partitions", "1",
		"--replication-factor", "1", "--config", "retention.ms=1000", "--config-file", conf)
	c.want(0, nil, "configs", "alter", "--entity-type", "users", "--entity-name", "alice",
		"--add-config", "SCRAM-SHA-256=[password=alice-secret]", "--config-file", conf)

	// c.zk has no identity: it reads the topic but cannot change it.
	if _, _, err := c.zk.Get(c.ctx, znodes.TopicPath("secured")); err != nil {
		t.Fatalf("the topic znode should be world-readable: %v", err)
	}
	for _, path := range []string{znodes.TopicPath("secured"), znodes.ConfigEntityPath("topics", "secured")} {
		if _, err := c.zk.Set(c.ctx, path, []byte("{}"), zkadmin.AnyVersion); !errors.Is(err, zkadmin.ErrNoAuth) {
			t.Errorf("set %s without the identity: %v, want NoAuth", path, err)
		}
	}
	if _, _, err := c.zk.Get(c.ctx, znodes.ConfigEntityPath("users", "alice")); !errors.Is(err, zkadmin.ErrNoAuth) {
		t.Errorf("a user's credentials readable without the identity: %v", err)
	}
	// With it, kzadmin reads and changes them.
	c.want(0, []string{"SCRAM-SHA-256"}, "configs", "describe", "--entity-type", "users", "--entity-name", "alice", "--config-file", conf)
	c.want(0, []string{"Completed updating config for topic secured."}, "configs", "alter", "--entity-type", "topics",
		"--entity-name", "secured", "--add-config", "retention.ms=2000", "--config-file", conf)

	noDigest := filepath.Join(dir, "no-digest.properties")
	if err := os.WriteFile(noDigest, []byte("zookeeper.set.acl=true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.want(1, []string{"zookeeper.set.acl=true needs an identity for the znodes kzadmin creates: kzadmin.zookeeper.digest=user:password, a TLS client certificate (zookeeper.ssl.keystore.location), or a SASL login (kzadmin.zookeeper.sasl.jaas.file)"}, "topics", "create", "--topic", "open",
		"--partitions", "1", "--replication-factor", "1", "--config-file", noDigest)
	if ok, _, err := c.zk.Exists(c.ctx, znodes.TopicPath("open")); err != nil || ok {
		t.Fatalf("topic written without the digest: %v %v", ok, err)
	}
}

// TestZooKeeperSecurityMigration: zookeeper-security-migration takes a
// cluster whose znodes were made open to Kafka's secure ACLs, as the
// digest identity of --config-file, and back: a session without the
// identity can read a topic but not change it, nor read a user's
// credentials, until unsecure opens them again. /consumers stays open.
// Without an identity, secure is refused and nothing changes; a dry run
// counts and changes nothing; --enable.path.check fails, unchanged, when
// one of Kafka's paths is missing.
func TestZooKeeperSecurityMigration(t *testing.T) {
	c := newCluster(t, "r1")
	dir := t.TempDir()
	conf := filepath.Join(dir, "digest.properties")
	if err := os.WriteFile(conf, []byte("kzadmin.zookeeper.digest=ops:ops-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.want(0, []string{"Created topic legacy."}, "topics", "create", "--topic", "legacy", "--partitions", "2",
		"--replication-factor", "1")
	c.want(0, nil, "configs", "alter", "--entity-type", "users", "--entity-name", "alice",
		"--add-config", "SCRAM-SHA-256=[password=alice-secret]")
	if _, err := c.zk.CreateRecursive(c.ctx, znodes.ConsumersPath+"/group/offsets", nil, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	topic, state := znodes.TopicPath("legacy"), znodes.ConfigEntityPath("topics", "legacy")
	writable := func(path string) bool {
		t.Helper()
		_, err := c.zk.Set(c.ctx, path, nil, -2) // a version no znode has: only the ACL check can refuse first
		switch {
		case errors.Is(err, zkadmin.ErrNoAuth):
			return false
		case errors.Is(err, zkadmin.ErrBadVersion):
			return true
		}
		t.Fatalf("set %s: %v", path, err)
		return false
	}
	for _, p := range []string{topic, state, znodes.ConsumersPath + "/group/offsets"} {
		if !writable(p) {
			t.Fatalf("%s not open before the migration", p)
		}
	}

	c.want(1, []string{"secure ACLs belong to the session's identity, and this one has none"},
		"zookeeper-security-migration", "--zookeeper.acl", "secure")
	c.want(0, []string{"Would set secure ACLs on"}, "zookeeper-security-migration", "--zookeeper.acl", "secure",
		"--config-file", conf, "--dry-run")
	c.want(1, []string{"paths not present: ", "nothing changed"}, "zookeeper-security-migration", "--zookeeper.acl", "secure",
		"--config-file", conf, "--enable.path.check")
	if !writable(topic) {
		t.Fatal("the refused, dry and checked runs changed an ACL")
	}

	c.want(0, []string{"Set secure ACLs on", "znodes"}, "zookeeper-security-migration", "--zookeeper.acl", "secure",
		"--config-file", conf)
	if writable(topic) || writable(state) || writable("/") {
		t.Fatal("secured znodes are writable without the identity")
	}
	if _, _, err := c.zk.Get(c.ctx, topic); err != nil {
		t.Fatalf("a secured topic is not world-readable: %v", err)
	}
	if _, _, err := c.zk.Get(c.ctx, znodes.ConfigEntityPath("users", "alice")); !errors.Is(err, zkadmin.ErrNoAuth) {
		t.Fatalf("a user's credentials readable without the identity: %v", err)
	}
	if !writable(znodes.ConsumersPath + "/group/offsets") {
		t.Fatal("/consumers was secured; Kafka leaves it open")
	}
	// The identity still administers the cluster.
	c.want(0, []string{"Completed updating config for topic legacy."}, "configs", "alter", "--entity-type", "topics",
		"--entity-name", "legacy", "--add-config", "retention.ms=2000", "--config-file", conf)

	c.want(0, []string{`"zookeeper_acl": "unsecure"`, `"dry_run": false`}, "zookeeper-security-migration", "--zookeeper.acl", "unsecure",
		"--config-file", conf, "-o", "json")
	for _, p := range []string{topic, state, znodes.ConfigEntityPath("users", "alice"), "/"} {
		if !writable(p) {
			t.Errorf("%s not open after unsecure", p)
		}
	}
}

// TestZKTLSConfigFileErrors: --zk-tls-config-file belongs to --zookeeper,
// and its zookeeper.ssl.* values are checked (its other keys ignored)
// before kzadmin connects.
func TestZKTLSConfigFileErrors(t *testing.T) {
	c := newCluster(t, "r1")
	bad := filepath.Join(t.TempDir(), "zk-tls.properties")
	if err := os.WriteFile(bad, []byte("zookeeper.ssl.client.enable=maybe\nmax.partitions=oops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.want(2, []string{`--zk-tls-config-file: config: zookeeper.ssl.client.enable="maybe": must be true or false`},
		"topics", "list", "--zk-tls-config-file", bad)
	c.want(2, []string{"--zk-tls-config-file applies to --zookeeper"},
		"topics", "list", "--zk-tls-config-file", bad, "--bootstrap-server", "127.0.0.1:1", "--zookeeper", "")
}
