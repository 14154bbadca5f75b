package javahash

import "testing"

// TestStringMatchesJava checks values of Java's String.hashCode (the
// first nine printed by Java 17): ASCII, Latin-1, characters outside it,
// surrogate pairs, and the key whose hash is Integer.MIN_VALUE.
func TestStringMatchesJava(t *testing.T) {
	for _, c := range []struct {
		s    string
		hash int32
	}{
		{"", 0},
		{"a", 97},
		{"hello", 99162322},
		{"my-group", -1906497762},
		{"console-consumer-12345", 158455506},
		{"Ω-gruppe-✓", 1492900005},
		{"𝄞clef", 463595828},
		{"txn-1", 110810510},
		{"polygenelubricants", -2147483648},
		{"rack1", 108269626},
		{"broker.id", -1331263664},
		{"é", 233},
		{"\U0001F600", 1772899},
	} {
		if h := String(c.s); h != c.hash {
			t.Errorf("String(%q) = %d, Java says %d", c.s, h, c.hash)
		}
	}
}
