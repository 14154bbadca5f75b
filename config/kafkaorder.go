package config

// Kafka's broker lists the configs it refuses as a Scala set printed with
// toString ("Set(a, b)"), so the order of the names, and the word before
// the parenthesis, come from the JVM's hash tables: the order of a
// java.util.Properties (a ConcurrentHashMap) the request's configs pass
// through, then Scala's small sets (up to four elements, in insertion
// order, "Set") or its hash sets ("HashSet", in hash order). The
// functions here reproduce those orders from String.hashCode so that
// kzadmin's messages list the names as Kafka 3.9 (on Java 17 and Scala
// 2.13) does. They were checked against the real classes; see
// kafkaorder_test.go.

import (
	"sort"
	"strings"

	"github.com/kzadmin/kzadmin/internal/javahash"
)

// javaSpread is the bucket hash of java.util.HashMap and
// ConcurrentHashMap: the high half folded into the low half.
func javaSpread(s string) uint32 {
	h := uint32(javahash.String(s))
	return (h ^ h>>16) & 0x7fffffff
}

// chm models a java.util.concurrent.ConcurrentHashMap's bins closely
// enough to give its iteration order: puts append to their bin, and a
// resize splits each bin the way ConcurrentHashMap.transfer does, which
// keeps the bin's last run in order and reverses the nodes before it.
type chm struct {
	bins    [][]string
	count   int
	sizeCtl int
}

// newProperties is an empty java.util.Properties: a ConcurrentHashMap
// created with capacity 8, which sizes its table at 16.
func newProperties() *chm { return &chm{bins: make([][]string, 16), sizeCtl: 12} }

func (m *chm) put(k string) {
	n := uint32(len(m.bins))
	i := javaSpread(k) & (n - 1)
	m.bins[i] = append(m.bins[i], k)
	m.count++
	if m.count >= m.sizeCtl {
		m.transfer()
	}
}

func (m *chm) transfer() {
	n := len(m.bins)
	next := make([][]string, 2*n)
	for i, bin := range m.bins {
		if len(bin) == 0 {
			continue
		}
		high := func(k string) bool { return javaSpread(k)&uint32(n) != 0 }
		last := len(bin) - 1
		for last > 0 && high(bin[last-1]) == high(bin[len(bin)-1]) {
			last--
		}
		lo, hi := []string{}, []string{}
		if high(bin[last]) {
			hi = append(hi, bin[last:]...)
		} else {
			lo = append(lo, bin[last:]...)
		}
		for _, k := range bin[:last] {
			if high(k) {
				hi = append([]string{k}, hi...)
			} else {
				lo = append([]string{k}, lo...)
			}
		}
		next[i], next[i+n] = lo, hi
	}
	m.bins, m.sizeCtl = next, 2*n-n/2
}

func (m *chm) keys() []string {
	var out []string
	for _, bin := range m.bins {
		out = append(out, bin...)
	}
	return out
}

// hashMapOrder is the iteration order of a java.util.HashMap of the given
// capacity filled in the order of keys: by bucket, then insertion order
// (a HashMap resize keeps the order within a bucket).
func hashMapOrder(keys []string, capacity int) []string {
	out := append([]string(nil), keys...)
	mask := uint32(capacity - 1)
	sort.SliceStable(out, func(i, j int) bool { return javaSpread(out[i])&mask < javaSpread(out[j])&mask })
	return out
}

// tableSizeFor is HashMap.tableSizeFor: the power of two at or above n.
func tableSizeFor(n int) int {
	c := 1
	for c < n {
		c *= 2
	}
	return c
}

// brokerPropsOrder is the order in which Kafka's
// DynamicBrokerConfig.validateConfigs sees the configs of an alter
// request given in insertion order: a Properties filled in that order,
// copied by AbstractConfig (Utils.castToStringObjectMap, a HashMap
// created with the size, then two HashMaps filled by putAll) into a new
// Properties by DynamicBrokerConfig.resolveVariableConfigs.
func brokerPropsOrder(keys []string) []string {
	p := newProperties()
	for _, k := range keys {
		p.put(k)
	}
	order, s := p.keys(), len(keys)
	cap1 := tableSizeFor(s)
	for s > cap1*3/4 {
		cap1 *= 2
	}
	order = hashMapOrder(order, cap1)
	// Java 17's HashMap.putAll sizes an empty map for s/0.75+1 entries.
	order = hashMapOrder(order, tableSizeFor(int(float32(s)/0.75+1)))
	q := newProperties()
	for _, k := range order {
		q.put(k)
	}
	return q.keys()
}

// scalaImprove is scala.collection.Hashing.improve, the hash Scala
// 2.13's immutable HashSet files elements by.
func scalaImprove(h int32) uint32 {
	x := uint32(h) + ^(uint32(h) << 9)
	x ^= x >> 14
	x += x << 4
	return x ^ x>>10
}

// champOrder is the iteration order of a Scala 2.13 immutable.HashSet (a
// CHAMP trie, whose shape depends only on its elements): at each level,
// the elements alone in their 5-bit slice of the hash, by slice, then
// the sub-tries of slices shared by several, by slice. Elements whose
// hashes are equal keep the given order.
func champOrder(keys []string, shift uint) []string {
	if len(keys) < 2 || shift >= 35 {
		return keys
	}
	groups := map[uint32][]string{}
	var slices []uint32
	for _, k := range keys {
		s := scalaImprove(javahash.String(k)) >> shift & 31
		if groups[s] == nil {
			slices = append(slices, s)
		}
		groups[s] = append(groups[s], k)
	}
	sort.Slice(slices, func(i, j int) bool { return slices[i] < slices[j] })
	var out []string
	for _, s := range slices {
		if len(groups[s]) == 1 {
			out = append(out, groups[s][0])
		}
	}
	for _, s := range slices {
		if len(groups[s]) > 1 {
			out = append(out, champOrder(groups[s], shift+5)...)
		}
	}
	return out
}

// scalaSetString is toString of a Scala 2.13 immutable Set built by
// adding names in the given order: Set1 to Set4 keep that order, a fifth
// element makes it a HashSet.
func scalaSetString(names []string) string {
	if len(names) <= 4 {
		return "Set(" + strings.Join(names, ", ") + ")"
	}
	return "HashSet(" + strings.Join(champOrder(names, 0), ", ") + ")"
}

// scalaMutableHashSetString is toString of a Scala 2.13 mutable.HashSet
// of up to twelve names (one table of 16 buckets): by bucket of the hash
// with its high half folded in, then by that hash within a bucket.
func scalaMutableHashSetString(names []string) string {
	out := append([]string(nil), names...)
	hash := func(s string) int32 { h := javahash.String(s); return h ^ int32(uint32(h)>>16) }
	sort.SliceStable(out, func(i, j int) bool {
		hi, hj := hash(out[i]), hash(out[j])
		if hi&15 != hj&15 {
			return hi&15 < hj&15
		}
		return hi < hj
	})
	return "HashSet(" + strings.Join(out, ", ") + ")"
}
