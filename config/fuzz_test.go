package config

import (
	"strings"
	"testing"
)

// The parsers read operator input; they must never panic, and whatever they
// accept must print back to text they read the same way.

func FuzzParseProperties(f *testing.F) {
	for _, s := range []string{
		"a=b", "a b", "a:b", "a\\\n  b", "#c\na=\\u0041", "\\=\\:=\\\\", "a=\\", "k\r\nv\rw", "!x\n  y = z  ",
		"a=\\u12", "\\", "=", "   ", "a=b\\\\\nc=d",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		props, err := parseProperties(text)
		if err != nil {
			return
		}
		// Escape every entry and parse it again: same keys and values.
		var b strings.Builder
		for _, p := range props {
			b.WriteString(escapeForTest(p.Key, true) + "=" + escapeForTest(p.Value, false) + "\n")
		}
		again, err := parseProperties(b.String())
		if err != nil {
			t.Fatalf("re-parse of %q: %v", b.String(), err)
		}
		if len(again) != len(props) {
			t.Fatalf("%d entries, %d after re-parse of %q", len(props), len(again), b.String())
		}
		for i := range props {
			if again[i].Key != props[i].Key || again[i].Value != props[i].Value {
				t.Fatalf("entry %d: %q=%q became %q=%q", i, props[i].Key, props[i].Value, again[i].Key, again[i].Value)
			}
		}
	})
}

// escapeForTest writes s as a properties key or value that reads back as s.
func escapeForTest(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ { // bytes, so invalid UTF-8 survives
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\f':
			b.WriteString(`\f`)
		case (c == '=' || c == ':' || c == ' ') && key:
			b.WriteString(`\` + string(c))
		case c == ' ' && i == 0:
			b.WriteString(`\ `) // a leading blank in a value would be skipped
		case (c == '#' || c == '!') && i == 0 && key:
			b.WriteString(`\` + string(c))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func FuzzParseZKConnect(f *testing.F) {
	for _, s := range []string{"zk:2181", "a,b,c/chroot", "[::1]:2181/x", "zk:2181/", "zk:0", "/only", ",,", "a:1/b/../c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		z, err := ParseZKConnect(s)
		if err != nil {
			return
		}
		again, err := ParseZKConnect(z.String())
		if err != nil || again.String() != z.String() {
			t.Fatalf("%q -> %q -> %q, %v", s, z.String(), again.String(), err)
		}
		if err := z.validate(); err != nil {
			t.Fatalf("accepted %q but validate says %v", s, err)
		}
	})
}

func FuzzParseListener(f *testing.F) {
	for _, s := range []string{"PLAINTEXT://:9092", "a://[::1]:1", "X://h:65535", "bad", "A://h:99999", "A://[fe80::1%eth0]:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseListener(s)
		if err != nil {
			return
		}
		again, err := ParseListener(l.String())
		if err != nil || again != l {
			t.Fatalf("%q -> %+v -> %+v, %v", s, l, again, err)
		}
	})
}

func FuzzParseIBP(f *testing.F) {
	for _, s := range []string{"3.9", "0.10.0.1", "2.7-IV2", "3.9.9.9", "0.", "-IV0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseIBP(s)
		if err != nil {
			return
		}
		if !v.Valid() {
			t.Fatalf("%q parsed to invalid %d", s, v)
		}
		if again, err := ParseIBP(v.String()); err != nil || again != v {
			t.Fatalf("%q -> %s -> %s, %v", s, v, again, err)
		}
	})
}
