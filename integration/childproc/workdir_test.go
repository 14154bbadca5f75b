package childproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkDir(t *testing.T) {
	tmp, err := NewWorkDir("", "childproc-test-")
	if err != nil {
		t.Fatal(err)
	}
	if !tmp.Temp || !strings.HasPrefix(filepath.Base(tmp.Path), "childproc-test-") {
		t.Fatalf("temporary dir %+v", tmp)
	}
	if err := tmp.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp.Path); !os.IsNotExist(err) {
		t.Fatalf("temporary dir still there: %v", err)
	}

	named := t.TempDir()
	d, err := NewWorkDir(named, "unused-")
	if err != nil || d.Path != named || d.Temp {
		t.Fatalf("named dir: %+v, %v", d, err)
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(named); err != nil {
		t.Fatalf("named dir removed: %v", err)
	}
}

func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := FreePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v: bad or repeated %d", ports, p)
		}
		seen[p] = true
	}
}
