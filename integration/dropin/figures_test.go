package dropin

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Which controller a figure was measured under.
const (
	kzadmind = iota
	kafkaCtl
)

// figures collects timings measured under kzadmind and under Kafka's own
// controller, for one table printed at the end. Nothing asserts on them.
type figures struct {
	mu    sync.Mutex
	order []string
	vals  map[string]*[2]time.Duration
}

func newFigures() *figures { return &figures{vals: map[string]*[2]time.Duration{}} }

func (f *figures) add(name string, under int, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.vals[name]
	if !ok {
		v = &[2]time.Duration{-1, -1}
		f.vals[name] = v
		f.order = append(f.order, name)
	}
	v[under] = d
}

// log prints the table.
func (f *figures) log(t *testing.T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "timing figures (ZooKeeper session timeout %s for brokers and controllers):\n", sessionTimeout)
	fmt.Fprintf(&b, "  %-58s %12s %12s\n", "", "kzadmind", "Kafka 3.9")
	for _, name := range f.order {
		v := f.vals[name]
		fmt.Fprintf(&b, "  %-58s %12s %12s\n", name, cell(v[kzadmind]), cell(v[kafkaCtl]))
	}
	t.Log(b.String())
}

func cell(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return d.Round(time.Millisecond).String()
}
