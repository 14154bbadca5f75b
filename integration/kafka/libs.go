package kafka

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Version is the Kafka release the harness runs.
const Version = "3.9.1"

// LibsEnv names a directory of Kafka jars to use instead of the cache.
const LibsEnv = "KZADMIN_KAFKA_LIBS"

// The jars whose presence proves a directory holds what the harness needs:
// the broker and the tools artifact.
var requiredJars = []string{"kafka_2.13-" + Version + ".jar", "kafka-tools-" + Version + ".jar"}

//go:embed pom.xml
var pom []byte

const (
	markerName = ".kzadmin-complete"
	// fetchTimeout bounds the whole fetch, including waiting for another
	// process that holds the lock. A cold fetch (empty ~/.m2) took 7 minutes
	// on the development machine, most of it Maven fetching itself.
	fetchTimeout = 20 * time.Minute
)

// Libs returns the directory holding the Kafka jars: $KZADMIN_KAFKA_LIBS when
// set, otherwise a per-machine cache ($XDG_CACHE_HOME or ~/.cache, then
// kzadmin/kafka-<Version>/libs), which is filled with Maven on first use.
// Concurrent callers, in this process or others, fetch at most once.
func Libs(ctx context.Context) (string, error) {
	if dir := os.Getenv(LibsEnv); dir != "" {
		if err := checkLibs(dir); err != nil {
			return "", fmt.Errorf("%s=%s: %w", LibsEnv, dir, err)
		}
		return dir, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("kafka jars: no cache directory: %w", err)
	}
	root := filepath.Join(cache, "kzadmin", "kafka-"+Version)
	return fetchLibs(ctx, root, "mvn")
}

// fetchLibs makes sure root/libs holds a complete copy of the pom's
// dependencies, running mvn (the binary named) if it does not. The copy is
// built in a temporary directory and renamed into place, and a marker file
// records the pom it came from, so a reader never sees a half-written
// directory and a changed pom triggers a new fetch.
func fetchLibs(ctx context.Context, root, mvn string) (string, error) {
	libs := filepath.Join(root, "libs")
	if complete(libs) {
		return libs, nil
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("kafka jars: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(root, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if complete(libs) { // another process fetched while we waited
		return libs, nil
	}
	if err := removeStale(root); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, "fetch-")
	if err != nil {
		return "", fmt.Errorf("kafka jars: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := runMaven(ctx, mvn, tmp); err != nil {
		return "", err
	}
	fetched := filepath.Join(tmp, "libs")
	if err := checkLibs(fetched); err != nil {
		return "", fmt.Errorf("kafka jars fetched into %s: %w", fetched, err)
	}
	if err := os.WriteFile(filepath.Join(fetched, markerName), []byte(pomHash()+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("kafka jars marker: %w", err)
	}
	// An outdated copy (older pom) is moved aside first: rename cannot
	// replace a non-empty directory.
	if _, err := os.Stat(libs); err == nil {
		if err := os.Rename(libs, filepath.Join(tmp, "old")); err != nil {
			return "", fmt.Errorf("kafka jars: move old copy aside: %w", err)
		}
	}
	if err := os.Rename(fetched, libs); err != nil {
		return "", fmt.Errorf("kafka jars: %w", err)
	}
	return libs, nil
}

func runMaven(ctx context.Context, mvn, dir string) error {
	pomPath := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pomPath, pom, 0o644); err != nil {
		return fmt.Errorf("kafka jars: %w", err)
	}
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-f", pomPath,
		"dependency:copy-dependencies", "-DincludeScope=runtime",
		"-DoutputDirectory="+filepath.Join(dir, "libs"))
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("kafka jars: Maven is needed to fetch them (apt-get install -y maven), or set %s: %w", LibsEnv, err)
		}
		return fmt.Errorf("kafka jars: %s dependency:copy-dependencies: %w\n%s", mvn, err, lastLines(out.String(), 30))
	}
	return nil
}

// complete reports whether dir holds a finished fetch of the current pom.
func complete(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, markerName))
	return err == nil && strings.TrimSpace(string(b)) == pomHash()
}

func pomHash() string {
	sum := sha256.Sum256(pom)
	return hex.EncodeToString(sum[:])
}

// checkLibs makes sure dir holds the broker and tools jars.
func checkLibs(dir string) error {
	for _, jar := range requiredJars {
		if _, err := os.Stat(filepath.Join(dir, jar)); err != nil {
			return fmt.Errorf("not a Kafka %s jar directory: %w", Version, err)
		}
	}
	return nil
}

// removeStale deletes temporary directories left by a fetch that died; it
// runs under the lock, so none of them belongs to a live fetch.
func removeStale(root string) error {
	stale, err := filepath.Glob(filepath.Join(root, "fetch-*"))
	if err != nil {
		return fmt.Errorf("kafka jars: %w", err)
	}
	for _, dir := range stale {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("kafka jars: remove stale %s: %w", dir, err)
		}
	}
	return nil
}

// lockFile takes an exclusive flock on path, polling so the wait honours
// ctx. The lock dies with the process, so a crashed fetch never wedges it.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("kafka jars lock: %w", err)
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("kafka jars lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("kafka jars: waiting for lock %s: %w", path, ctx.Err())
		case <-tick.C:
		}
	}
}

// lastLines returns at most the last n lines of s, for error messages.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
