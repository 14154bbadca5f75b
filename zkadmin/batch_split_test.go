package zkadmin

import (
	"strings"
	"testing"
)

func sizeOfTest(o Op) int { return (&Client{}).opSize(o) }

func TestSplitBatchesByCount(t *testing.T) {
	ops := make([]Op, 250)
	for i := range ops {
		ops[i] = CreateOp("/x", nil, Persistent)
	}
	got := splitBatches(ops, 100, 1<<20, sizeOfTest, nil)
	want := []batchRange{{0, 100}, {100, 200}, {200, 250}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if b := splitBatches(nil, 100, 1<<20, sizeOfTest, nil); len(b) != 0 {
		t.Fatalf("empty ops gave %v", b)
	}
}

func TestSplitBatchesByBytes(t *testing.T) {
	big := make([]byte, 110<<10)
	ops := make([]Op, 25)
	for i := range ops {
		ops[i] = SetOp("/p", big, AnyVersion)
	}
	got := splitBatches(ops, 1000, 512<<10, sizeOfTest, nil)
	total := 0
	for _, b := range got {
		n := b.end - b.start
		if n < 1 || n > 4 { // 5 × 110 KiB exceeds 512 KiB
			t.Fatalf("batch %v has %d ops", b, n)
		}
		size := multiOverhead
		for _, o := range ops[b.start:b.end] {
			size += sizeOfTest(o)
		}
		if size > 512<<10 {
			t.Fatalf("batch %v is %d bytes", b, size)
		}
		total += n
	}
	if total != len(ops) || got[0].start != 0 || got[len(got)-1].end != len(ops) {
		t.Fatalf("batches %v do not cover the ops", got)
	}
}

func TestSplitBatchesOversizedOpAlone(t *testing.T) {
	ops := []Op{
		CreateOp("/a", nil, Persistent),
		CreateOp("/big", make([]byte, 2<<20), Persistent),
		CreateOp("/b", nil, Persistent),
	}
	got := splitBatches(ops, 100, 1<<20, sizeOfTest, nil)
	want := []batchRange{{0, 1}, {1, 2}, {2, 3}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestOpSizeCountsChrootAndACL(t *testing.T) {
	c := &Client{root: "/kafka"}
	o := CreateOp("/brokers/topics/t", []byte("12345"), Persistent)
	plain := (&Client{}).opSize(o)
	if got := c.opSize(o); got != plain+len("/kafka") {
		t.Fatalf("chroot size %d, plain %d", got, plain)
	}
	o.ACL = []ACL{{PermAll, "digest", strings.Repeat("x", 100)}}
	if got := (&Client{}).opSize(o); got <= plain+90 {
		t.Fatalf("ACL not counted: %d vs %d", got, plain)
	}
}

// runsOf marks op i as depending on op i-1 unless it starts a run: the
// runs are of the given lengths, in order.
func runsOf(lengths ...int) func(int) bool {
	starts := map[int]bool{}
	at := 0
	for _, n := range lengths {
		starts[at] = true
		at += n
	}
	return func(i int) bool { return !starts[i] }
}

func TestSplitBatchesKeepsDependentRunsTogether(t *testing.T) {
	ops := make([]Op, 12)
	for i := range ops {
		ops[i] = CreateOp("/x", nil, Persistent)
	}
	// Runs of 3, 3, 5 and 1 ops with at most 4 ops a batch: a run never
	// splits, and the 5-op run exceeds the op count rather than split.
	got := splitBatches(ops, 4, 1<<20, sizeOfTest, runsOf(3, 3, 5, 1))
	want := []batchRange{{0, 3}, {3, 6}, {6, 11}, {11, 12}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// Runs of 2 pack two to a batch of 4.
	got = splitBatches(ops, 4, 1<<20, sizeOfTest, runsOf(2, 2, 2, 2, 2, 2))
	want = []batchRange{{0, 4}, {4, 8}, {8, 12}}
	for i := range want {
		if len(got) != len(want) || got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestSplitBatchesCutsARunLargerThanAnyMulti(t *testing.T) {
	big := make([]byte, 300<<10)
	ops := []Op{CreateOp("/a", nil, Persistent)}
	for range 5 { // 1.5 MiB in one run
		ops = append(ops, CreateOp("/r", big, Persistent))
	}
	got := splitBatches(ops, 1000, 512<<10, sizeOfTest, runsOf(1, 5))
	covered := 0
	for i, b := range got {
		size := multiOverhead
		for _, o := range ops[b.start:b.end] {
			size += sizeOfTest(o)
		}
		if size > MaxMultiBytes {
			t.Fatalf("batch %v is %d bytes, over the ceiling", b, size)
		}
		if b.start != covered {
			t.Fatalf("batch %d %v leaves a gap in %v", i, b, got)
		}
		covered = b.end
	}
	if covered != len(ops) || got[0] != (batchRange{0, 1}) {
		t.Fatalf("batches %v: the lone op should stand alone and all be covered", got)
	}
}
