package kafkatest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kzadmin/kzadmin/integration/kafka"
)

// KeepLogs says where the logs of a failed test go: real brokers say in
// their logs exactly what they rejected, and the temporary directories
// holding them vanish with the test.
type KeepLogs struct {
	// Env names a variable that, set to 1, keeps the logs of a passing
	// test too.
	Env string
	// Pattern is the os.MkdirTemp pattern of the directory the logs are
	// copied to, such as "kzadmin-dropin-logs-". Empty keeps nothing.
	Pattern string
	// Dirs are directories (kzadmind's logs, a client's) whose *.log
	// files are kept along with the brokers' logs.
	Dirs []string
}

// register arranges for the logs to be kept when tb ends failed.
func (k KeepLogs) register(tb testing.TB, c *kafka.Cluster) {
	if k.Pattern == "" {
		return
	}
	tb.Cleanup(func() {
		if !tb.Failed() && (k.Env == "" || os.Getenv(k.Env) != "1") {
			return
		}
		dst, err := k.copy(c.Brokers)
		switch {
		case dst == "":
			tb.Logf("keep logs: %v", err)
		case err != nil:
			tb.Logf("logs kept in %s, some missing: %v", dst, err)
		default:
			tb.Logf("logs kept in %s", dst)
		}
	})
}

// copy copies the logs into a new directory and returns its path (empty
// when there is none) and the first failure. The
// brokers' logs are renamed broker-<id>.log, since each is server.log in
// a directory of its own. A log that cannot be read is skipped: the rest
// still helps.
func (k KeepLogs) copy(brokers []*kafka.Broker) (string, error) {
	files := map[string]string{} // name in dst -> source
	for _, dir := range k.Dirs {
		own, err := filepath.Glob(filepath.Join(dir, "*.log"))
		if err != nil {
			return "", fmt.Errorf("list logs in %s: %w", dir, err)
		}
		for _, src := range own {
			files[filepath.Base(src)] = src
		}
	}
	for _, b := range brokers {
		files[fmt.Sprintf("broker-%d.log", b.ID())] = b.LogPath()
	}
	return copyFiles(k.Pattern, files)
}

// copyFiles copies each source to its name in a new temporary directory
// made with pattern, going on past a file it cannot write, and returns the
// directory and the first such failure.
func copyFiles(pattern string, files map[string]string) (string, error) {
	dst, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("make log directory: %w", err)
	}
	var first error
	for name, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			continue // a broker that never started has no log
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o644); err != nil && first == nil {
			first = fmt.Errorf("keep %s: %w", name, err)
		}
	}
	return dst, first
}
