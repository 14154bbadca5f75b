package kafka

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeMaven writes a stand-in for mvn that counts its runs in dir/runs and
// "downloads" the required jars into -DoutputDirectory.
func fakeMaven(t *testing.T, dir string) string {
	t.Helper()
	script := `#!/bin/sh
echo run >> "` + filepath.Join(dir, "runs") + `"
for a in "$@"; do
  case "$a" in -DoutputDirectory=*) out="${a#-DoutputDirectory=}";; esac
done
mkdir -p "$out"
for j in ` + strings.Join(requiredJars, " ") + ` other.jar; do : > "$out/$j"; done
`
	path := filepath.Join(dir, "mvn")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func runs(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "run")
}

func TestFetchLibsRunsMavenOnceUnderRace(t *testing.T) {
	tools, root := t.TempDir(), t.TempDir()
	mvn := fakeMaven(t, tools)
	// A fetch that died earlier left a temporary directory behind.
	if err := os.MkdirAll(filepath.Join(root, "fetch-dead", "libs"), 0o755); err != nil {
		t.Fatal(err)
	}
	const racers = 8
	dirs := make([]string, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() { dirs[i], errs[i] = fetchLibs(context.Background(), root, mvn) })
	}
	wg.Wait()
	for i := range racers {
		if errs[i] != nil || dirs[i] != filepath.Join(root, "libs") {
			t.Fatalf("racer %d: %q, %v", i, dirs[i], errs[i])
		}
	}
	if n := runs(t, tools); n != 1 {
		t.Fatalf("maven ran %d times, want 1", n)
	}
	if !complete(filepath.Join(root, "libs")) {
		t.Fatal("no completion marker")
	}
	if err := checkLibs(filepath.Join(root, "libs")); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "fetch-*")); len(left) != 0 {
		t.Fatalf("temporary directories left: %v", left)
	}
}

func TestFetchLibsRefetchesWhenPomChanged(t *testing.T) {
	tools, root := t.TempDir(), t.TempDir()
	mvn := fakeMaven(t, tools)
	if _, err := fetchLibs(context.Background(), root, mvn); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(root, "libs", markerName)
	if err := os.WriteFile(marker, []byte("hash-of-an-older-pom\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fetchLibs(context.Background(), root, mvn); err != nil {
		t.Fatal(err)
	}
	if n := runs(t, tools); n != 2 {
		t.Fatalf("maven ran %d times, want 2", n)
	}
	if !complete(filepath.Join(root, "libs")) {
		t.Fatal("refetch left no current marker")
	}
}

func TestFetchLibsReportsMavenFailure(t *testing.T) {
	tools, root := t.TempDir(), t.TempDir()
	mvn := filepath.Join(tools, "mvn")
	script := "#!/bin/sh\necho 'Could not resolve dependencies' >&2\nexit 1\n"
	if err := os.WriteFile(mvn, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := fetchLibs(context.Background(), root, mvn)
	if err == nil || !strings.Contains(err.Error(), "Could not resolve dependencies") {
		t.Fatalf("err = %v; want maven's output in it", err)
	}
	if _, statErr := os.Stat(filepath.Join(root, "libs")); !os.IsNotExist(statErr) {
		t.Fatalf("a failed fetch left a libs directory: %v", statErr)
	}
}

func TestLibsHonoursEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(LibsEnv, dir)
	if _, err := Libs(context.Background()); err == nil {
		t.Fatal("an empty directory was accepted as Kafka jars")
	}
	for _, j := range requiredJars {
		if err := os.WriteFile(filepath.Join(dir, j), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Libs(context.Background())
	if err != nil || got != dir {
		t.Fatalf("Libs = %q, %v; want %q", got, err, dir)
	}
}
