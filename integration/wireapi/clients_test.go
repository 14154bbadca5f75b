package wireapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

// The non-Go clients (KafkaJS, and librdkafka through confluent-kafka) are
// installed by clients/install.sh, which scripts/setup runs, into a
// per-machine cache; KZADMIN_CLIENTS_DIR overrides it as it does there.
func clientsDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("KZADMIN_CLIENTS_DIR"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, ".cache", "kzadmin", "clients")
}

// clientScriptTimeout bounds one client script: it makes a dozen admin
// calls, a deletion among them.
const clientScriptTimeout = 2 * time.Minute

// runClientScript runs testdata/script with interpreter against kzadmind,
// naming its topics after a fresh prefix made from base, and decodes the
// one JSON object it prints into out; the script's stderr, and what
// kzadmind served meanwhile, go to the test log. It returns the names of
// the script's two topics (<prefix>-a and <prefix>-b).
func (c *cluster) runClientScript(t *testing.T, ctx context.Context, out any, interpreter, script, base string) (a, b string) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	prefix := scriptPrefix(base)
	before := c.served.snapshot()
	runScript(t, ctx, out, interpreter, path, c.d.KafkaAddr(), prefix)
	t.Logf("kzadmind served: %v", c.served.since(before))
	return prefix + "-a", prefix + "-b"
}

// runScript runs a command that prints one JSON object and decodes it
// into out; its stderr goes to the test log.
func runScript(t *testing.T, ctx context.Context, out any, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, clientScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = os.Environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	if stderr.Len() > 0 {
		t.Logf("%s stderr:\n%s", filepath.Base(name), stderr.String())
	}
	if err != nil {
		t.Fatalf("%s %v: %v (stdout: %s)", name, args, err, stdout.String())
	}
	t.Logf("%s ran in %s", filepath.Base(args[0]), time.Since(began).Round(time.Millisecond))
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s: decode its output: %v (stdout: %s)", name, err, stdout.String())
	}
}

// requireFile fails the test, naming the installer, when a client is not
// installed.
func requireFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%v: run scripts/setup (integration/wireapi/clients/install.sh) to install the client", err)
	}
}

// zkTopicExists reports whether ZooKeeper holds the topic's znode.
func (c *cluster) zkTopicExists(t *testing.T, ctx context.Context, name string) bool {
	t.Helper()
	ok, _, err := c.zkc.Exists(ctx, znodes.TopicPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// scriptRuns numbers the client scripts a test binary runs, so that a
// repeated test (-count) names its topics afresh on the shared cluster.
var scriptRuns atomic.Int32

// scriptPrefix is a fresh topic-name prefix for one script run.
func scriptPrefix(base string) string { return fmt.Sprintf("%s%d", base, scriptRuns.Add(1)) }
