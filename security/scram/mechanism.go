package scram

import (
	"crypto/sha256"
	"crypto/sha512"
	"hash"
)

// Mechanism is a SCRAM mechanism. The zero value is invalid.
type Mechanism int8

// The mechanisms Kafka supports.
const (
	SHA256 Mechanism = iota + 1
	SHA512
)

// MinIterations is the least iteration count both of Kafka's mechanisms
// accept; MaxIterations is the most Kafka's admin API lets one set.
const (
	MinIterations = 4096
	MaxIterations = 16384
)

// Mechanisms lists the supported mechanisms.
func Mechanisms() []Mechanism { return []Mechanism{SHA256, SHA512} }

// MechanismByName returns the mechanism named name ("SCRAM-SHA-256" or
// "SCRAM-SHA-512", exactly as Kafka spells them).
func MechanismByName(name string) (Mechanism, bool) {
	for _, m := range Mechanisms() {
		if m.Name() == name {
			return m, true
		}
	}
	return 0, false
}

// Name is the SASL mechanism name, which is also the config key of the
// credential in /config/users/<user>.
func (m Mechanism) Name() string {
	switch m {
	case SHA256:
		return "SCRAM-SHA-256"
	case SHA512:
		return "SCRAM-SHA-512"
	}
	return "SCRAM-UNKNOWN"
}

func (m Mechanism) String() string { return m.Name() }

// Valid reports whether m is one of the supported mechanisms.
func (m Mechanism) Valid() bool { return m == SHA256 || m == SHA512 }

// newHash returns the mechanism's hash constructor.
func (m Mechanism) newHash() func() hash.Hash {
	if m == SHA512 {
		return sha512.New
	}
	return sha256.New
}

// keyLen is the length of the keys and of the salted password: the hash's
// output size.
func (m Mechanism) keyLen() int {
	if m == SHA512 {
		return sha512.Size
	}
	return sha256.Size
}
