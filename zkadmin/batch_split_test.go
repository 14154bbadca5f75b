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
	got := splitBatches(ops, 100, 1<<20, sizeOfTest)
	want := []batchRange{{0, 100}, {100, 200}, {200, 250}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if b := splitBatches(nil, 100, 1<<20, sizeOfTest); len(b) != 0 {
		t.Fatalf("empty ops gave %v", b)
	}
}

func TestSplitBatchesByBytes(t *testing.T) {
	big := make([]byte, 110<<10)
	ops := make([]Op, 25)
	for i := range ops {
		ops[i] = SetOp("/p", big, AnyVersion)
	}
	got := splitBatches(ops, 1000, 512<<10, sizeOfTest)
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
	got := splitBatches(ops, 100, 1<<20, sizeOfTest)
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
