package placement

import (
	"cmp"
	"slices"
	"unicode/utf16"

	"github.com/kzadmin/kzadmin/internal/javahash"
)

// rackKey names a rack. The absent rack (Optional.empty in Kafka) is a rack of its own for the
// striped placer and sorts before every named rack.
type rackKey struct {
	name    string
	present bool
}

// hash is Optional<String>.hashCode: 0 when absent.
func (k rackKey) hash() int32 {
	if !k.present {
		return 0
	}
	return javahash.String(k.name)
}

// compareJava orders strings as String.compareTo does: by UTF-16 code units. This differs from
// Go's byte order only when characters above U+FFFF meet characters in U+E000..U+FFFF.
func compareJava(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return cmp.Compare(a, b)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// compareRackKeys is Kafka's OptionalStringComparator: absent first, then String.compareTo.
func compareRackKeys(a, b rackKey) int {
	switch {
	case !a.present && !b.present:
		return 0
	case !a.present:
		return -1
	case !b.present:
		return 1
	}
	return compareJava(a.name, b.name)
}

// javaHashMapOrder returns the positions of keys (given in insertion order) in the order a
// java.util.HashMap holding them iterates: by final bucket, then by insertion within a bucket.
// The striped placer initialises and shuffles racks in this order, so reproducing it is what
// makes its random draws line up with Kafka's. (Treeified bins, which need eight colliding
// racks, are not modelled.)
func javaHashMapOrder(keys []rackKey) []int {
	capacity := 16
	for 4*len(keys) > 3*capacity {
		capacity *= 2
	}
	bucket := func(k rackKey) int {
		h := uint32(k.hash())
		return int((h ^ (h >> 16)) & uint32(capacity-1))
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(bucket(keys[a]), bucket(keys[b]))
	})
	return order
}
