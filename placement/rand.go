package placement

import (
	"math"
	"math/rand/v2"
)

// Rand is the random source the placers draw from. IntN returns a uniform value in [0, n)
// for n > 0. *rand.Rand from math/rand/v2 satisfies it, and so does JavaRandom.
type Rand interface {
	IntN(n int) int
}

// globalRand draws from math/rand/v2's goroutine-safe top-level source.
type globalRand struct{}

func (globalRand) IntN(n int) int { return rand.IntN(n) }

func randOrDefault(r Rand) Rand {
	if r == nil {
		return globalRand{}
	}
	return r
}

// javaShuffle permutes s exactly as java.util.Collections.shuffle(list, rnd) does, so the
// striped placer's reshuffles consume the random source the way Kafka's do.
func javaShuffle(s []int, r Rand) {
	for i := len(s); i > 1; i-- {
		j := r.IntN(i)
		s[i-1], s[j] = s[j], s[i-1]
	}
}

// JavaRandom reproduces java.util.Random.nextInt(bound) on top of either the JDK's 48-bit
// generator (NewJavaRandom) or Kafka's test generator MockRandom (NewMockRandom). It exists so
// Kafka's asserted striped-placer vectors, which run on MockRandom, can be replayed exactly.
// It is not safe for concurrent use.
type JavaRandom struct {
	state uint64
	mock  bool
}

const (
	javaMultiplier = 0x5DEECE66D
	javaAddend     = 0xB
	javaMask       = 1<<48 - 1
	mockMultiplier = 2862933555777941757
	mockAddend     = 3037000493
	// MockRandomSeed is the state Kafka's MockRandom() constructor starts from.
	MockRandomSeed = 17
)

// NewJavaRandom returns the generator new java.util.Random(seed) would be.
func NewJavaRandom(seed int64) *JavaRandom {
	return &JavaRandom{state: (uint64(seed) ^ javaMultiplier) & javaMask}
}

// NewMockRandom returns Kafka's org.apache.kafka.server.util.MockRandom(state).
// Kafka's tests use NewMockRandom(MockRandomSeed).
func NewMockRandom(state uint64) *JavaRandom {
	return &JavaRandom{state: state, mock: true}
}

// Next is java.util.Random.next(bits), for 1 <= bits <= 32.
func (r *JavaRandom) Next(bits uint) int32 {
	if r.mock {
		r.state = r.state*mockMultiplier + mockAddend
		return int32(r.state >> (64 - bits))
	}
	r.state = (r.state*javaMultiplier + javaAddend) & javaMask
	return int32(r.state >> (48 - bits))
}

// IntN is java.util.Random.nextInt(bound). It panics unless 0 < bound <= math.MaxInt32,
// as Java throws for a non-positive bound.
func (r *JavaRandom) IntN(bound int) int {
	if bound <= 0 || bound > math.MaxInt32 {
		panic("placement: JavaRandom.IntN bound out of range")
	}
	b := int32(bound)
	x := r.Next(31)
	m := b - 1
	if b&m == 0 {
		return int(int32((int64(b) * int64(x)) >> 31))
	}
	// Rejection loop; the test u-x+m >= 0 relies on int32 wrap-around, as in Java.
	for u := x; ; u = r.Next(31) {
		x = u % b
		if u-x+m >= 0 {
			return int(x)
		}
	}
}
