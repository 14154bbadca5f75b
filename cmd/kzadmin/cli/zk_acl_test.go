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
	c.want(1, []string{"zookeeper.set.acl=true needs an identity in --config-file: kzadmin.zookeeper.digest=user:password, or a client certificate"}, "topics", "create", "--topic", "open",
		"--partitions", "1", "--replication-factor", "1", "--config-file", noDigest)
	if ok, _, err := c.zk.Exists(c.ctx, znodes.TopicPath("open")); err != nil || ok {
		t.Fatalf("topic written without the digest: %v %v", ok, err)
	}
}
