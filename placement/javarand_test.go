package placement

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Reference §4.2: a fresh MockRandom (seed 17), its states and next(31)/next(32) outputs.
func TestMockRandomSequence(t *testing.T) {
	wantState := []uint64{11776382303842907130, 12521511226390524223, 2788764161116040816,
		16630761463268775901, 3755151325013768342}
	want31 := []int32{1370951335, 1457695759, 324654877, 1936075447, 437157150}
	want32 := []int32{-1553064625, -1379575778, 649309754, -422816401, 874314300}
	r31, r32 := NewMockRandom(MockRandomSeed), NewMockRandom(MockRandomSeed)
	for i := range 5 {
		if got := r31.Next(31); got != want31[i] {
			t.Errorf("call %d: next(31) = %d, want %d", i+1, got, want31[i])
		}
		if r31.state != wantState[i] {
			t.Errorf("call %d: state = %d, want %d", i+1, r31.state, wantState[i])
		}
		if got := r32.Next(32); got != want32[i] {
			t.Errorf("call %d: next(32) = %d, want %d", i+1, got, want32[i])
		}
	}
}

func TestMockRandomNextInt(t *testing.T) {
	for _, tc := range []struct {
		bound int
		want  []int
	}{
		{4, []int{2, 2, 0, 3, 0}},
		{3, []int{1, 1, 1, 1, 0}},
	} {
		r := NewMockRandom(MockRandomSeed)
		var got []int
		for range 5 {
			got = append(got, r.IntN(tc.bound))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("nextInt(%d) x5 = %v, want %v", tc.bound, got, tc.want)
		}
	}
}

// new java.util.Random(42).nextInt() is -1170105035 on every JDK.
func TestJavaRandomSeed42(t *testing.T) {
	if got := NewJavaRandom(42).Next(32); got != -1170105035 {
		t.Fatalf("new Random(42).nextInt() = %d, want -1170105035", got)
	}
}

// IntN stays in range for every kind of bound, including ones that force the rejection loop.
func TestJavaRandomIntNRange(t *testing.T) {
	r := NewJavaRandom(7)
	for _, bound := range []int{1, 2, 3, 5, 16, 17, 1 << 30, 1<<30 + 1, 2147483647} {
		for range 200 {
			if v := r.IntN(bound); v < 0 || v >= bound {
				t.Fatalf("IntN(%d) = %d", bound, v)
			}
		}
	}
}

func TestJavaRandomIntNPanicsOnBadBound(t *testing.T) {
	for _, bound := range []int{0, -1, 1 << 31} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("IntN(%d) did not panic", bound)
				}
			}()
			NewMockRandom(1).IntN(bound)
		}()
	}
}

// Collections.shuffle draws nextInt(i) for i = size..2 and swaps i-1 with the draw.
func TestJavaShuffleDrawOrder(t *testing.T) {
	rec := &recordingRand{r: NewMockRandom(MockRandomSeed)}
	s := []int{0, 1, 2, 3}
	javaShuffle(s, rec)
	if want := []int{4, 3, 2}; !slices.Equal(rec.bounds, want) {
		t.Fatalf("bounds = %v, want %v", rec.bounds, want)
	}
	// nextInt(4)=2, nextInt(3)=1 (MockRandom), nextInt(2): replay to derive the permutation.
	r := NewMockRandom(MockRandomSeed)
	want := []int{0, 1, 2, 3}
	for i := 4; i > 1; i-- {
		j := r.IntN(i)
		want[i-1], want[j] = want[j], want[i-1]
	}
	if !slices.Equal(s, want) {
		t.Fatalf("shuffle = %v, want %v", s, want)
	}
	one := []int{9}
	javaShuffle(one, rec)
	if len(rec.bounds) != 3 {
		t.Fatal("shuffling one element drew from the source")
	}
}

// Reference §4.3: HashMap iteration order of rack names.
func TestJavaHashMapOrder(t *testing.T) {
	keys := func(names ...string) []rackKey {
		var out []rackKey
		for _, n := range names {
			out = append(out, rackKey{name: n, present: true})
		}
		return out
	}
	for _, tc := range []struct {
		keys []rackKey
		want []int
	}{
		{keys("4", "2", "3", "1"), []int{3, 1, 2, 0}},
		{keys("rack1", "rack2", "rack3"), []int{2, 0, 1}}, // rack3, rack1, rack2
		{keys("q", "a"), []int{0, 1}},                     // same bucket: insertion order
		{keys("a", "q"), []int{0, 1}},
		{append(keys("1"), rackKey{}), []int{1, 0}}, // absent hashes to 0
	} {
		if got := javaHashMapOrder(tc.keys); !slices.Equal(got, tc.want) {
			t.Errorf("order(%v) = %v, want %v", tc.keys, got, tc.want)
		}
	}
}

func TestJavaHashMapOrderResizes(t *testing.T) {
	// 13 keys need a 32-slot table: "16" (hash 1573, bucket 5 of 32) must come before "0".
	var ks []rackKey
	for i := range 13 {
		ks = append(ks, rackKey{name: string(rune('A' + i)), present: true})
	}
	got := javaHashMapOrder(ks)
	// Single letters hash to their code (65..77) and sit in buckets code&31 = 1..13.
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	// With 12 keys the table is 16 slots and 'P'(80)&15=0 sorts first.
	ks = append(ks[:11], rackKey{name: "P", present: true})
	if got := javaHashMapOrder(ks); got[0] != 11 {
		t.Fatalf("order = %v, want key 11 first", got)
	}
}

func TestCompareJavaUTF16Order(t *testing.T) {
	// U+FF5E is one code unit 0xFF5E; U+1F600 is the surrogate pair 0xD83D 0xDE00, so Java
	// sorts the emoji first although its code point is larger.
	if compareJava("\U0001F600", "\uFF5E") >= 0 {
		t.Fatal("surrogate pair should sort before U+FF5E")
	}
	if compareJava("a", "b") >= 0 || compareJava("b", "a") <= 0 || compareJava("ab", "ab") != 0 || compareJava("a", "ab") >= 0 {
		t.Fatal("ASCII order broken")
	}
	if compareRackKeys(rackKey{}, rackKey{name: "", present: true}) >= 0 {
		t.Fatal("absent rack must sort first")
	}
}

// recordingRand records the bounds it is asked for.
type recordingRand struct {
	r      Rand
	bounds []int
}

func (r *recordingRand) IntN(n int) int {
	r.bounds = append(r.bounds, n)
	return r.r.IntN(n)
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
