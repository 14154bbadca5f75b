// Package javahash computes java.lang.String.hashCode, which Kafka's
// behaviour depends on in several places kzadmin reproduces: the
// coordinator partition of a group or transactional id, and the iteration
// order of the JVM's hash maps and sets that shows in Kafka's messages and
// placements. Pure; no I/O.
package javahash

import "unicode/utf16"

// String is java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over
// the UTF-16 code units, in wrapping 32-bit arithmetic. Kafka decodes
// strings from UTF-8 as Go's conversion to runes does (an invalid byte
// becomes U+FFFD).
func String(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}
