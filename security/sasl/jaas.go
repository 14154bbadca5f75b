package sasl

import (
	"fmt"
	"strings"
)

// PlainLoginModule is the JAAS login module whose options hold the PLAIN
// user list.
const PlainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule"

// JAASEntry is one login module entry of a sasl.jaas.config value:
// "<module> <flag> key=value ... ;".
type JAASEntry struct {
	Module  string
	Flag    string // required, requisite, sufficient or optional
	Options map[string]string
}

// ParseJAAS reads a sasl.jaas.config value as Kafka's JaasConfig does:
// one or more entries, each a module class, a control flag and key=value
// options, ended by ';'. Values may be bare words or quoted with " or '
// (backslash escapes the next character); // and /* */ comments are
// skipped.
func ParseJAAS(s string) ([]JAASEntry, error) {
	const src = "sasl.jaas.config"
	toks, err := jaasTokens(s, src, false)
	if err != nil {
		return nil, err
	}
	out, rest, err := jaasEntries(toks, src)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%s: want \"<LoginModule> <flag> key=value ... ;\"", src)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no login module", src)
	}
	return out, nil
}

// ParseJAASFile reads a JAAS login configuration file, the file the JVM
// is given with -Djava.security.auth.login.config: sections
// "<Name> { <entries> };", each entry as in ParseJAAS. src names the file
// in errors. A name given twice is an error.
func ParseJAASFile(s, src string) (map[string][]JAASEntry, error) {
	toks, err := jaasTokens(s, src, true)
	if err != nil {
		return nil, err
	}
	out := map[string][]JAASEntry{}
	for len(toks) > 0 {
		if len(toks) < 2 || toks[0].special || !toks[1].is('{') {
			return nil, fmt.Errorf("%s: want \"<Name> { <LoginModule> <flag> key=value ... ; };\"", src)
		}
		name := toks[0].text
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s: section %s is given twice", src, name)
		}
		entries, rest, err := jaasEntries(toks[2:], src)
		if err != nil {
			return nil, err
		}
		if len(rest) < 2 || !rest[0].is('}') || !rest[1].is(';') {
			return nil, fmt.Errorf("%s: section %s does not end with \"};\"", src, name)
		}
		if len(entries) == 0 {
			return nil, fmt.Errorf("%s: section %s has no login module", src, name)
		}
		out[name] = entries
		toks = rest[2:]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no section", src)
	}
	return out, nil
}

// jaasEntries reads login module entries from the start of toks, up to
// the end or a special token that cannot start one ('}'), and returns the
// tokens left.
func jaasEntries(toks []jaasToken, src string) ([]JAASEntry, []jaasToken, error) {
	var out []JAASEntry
	for len(toks) > 0 && !toks[0].is('}') {
		if len(toks) < 2 || toks[0].special || toks[1].special {
			return nil, nil, fmt.Errorf("%s: want \"<LoginModule> <flag> key=value ... ;\"", src)
		}
		e := JAASEntry{Module: toks[0].text, Flag: toks[1].text, Options: map[string]string{}}
		switch e.Flag {
		case "required", "requisite", "sufficient", "optional":
		default:
			return nil, nil, fmt.Errorf("%s: invalid control flag %q", src, e.Flag)
		}
		toks = toks[2:]
		for {
			if len(toks) == 0 {
				return nil, nil, fmt.Errorf("%s: entry for %s does not end with ';'", src, e.Module)
			}
			if toks[0].is(';') {
				toks = toks[1:]
				break
			}
			if len(toks) < 3 || toks[0].special || !toks[1].is('=') || toks[2].special {
				return nil, nil, fmt.Errorf("%s: option of %s is not key=value", src, e.Module)
			}
			e.Options[toks[0].text] = toks[2].text
			toks = toks[3:]
		}
		out = append(out, e)
	}
	return out, toks, nil
}

// ParsePlainUsers returns the PLAIN users of a listener's
// plain.sasl.jaas.config: the user_<name>="<password>" options of its
// PlainLoginModule entry, as Kafka's PlainServerCallbackHandler reads them.
func ParsePlainUsers(jaas string) (map[string]string, error) {
	entries, err := ParseJAAS(jaas)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Module != PlainLoginModule {
			continue
		}
		users := map[string]string{}
		for k, v := range e.Options {
			if name, ok := strings.CutPrefix(k, "user_"); ok && name != "" {
				users[name] = v
			}
		}
		return users, nil
	}
	return nil, fmt.Errorf("sasl.jaas.config: no %s entry", PlainLoginModule)
}

type jaasToken struct {
	text    string
	special bool // '=' or ';', and in a file '{' and '}'
}

func (t jaasToken) is(c byte) bool { return t.special && t.text == string(c) }

// jaasTokens splits s into words, quoted strings and the specials '=' and
// ';', and with braces '{' and '}' (a file's sections; in a
// sasl.jaas.config value they are word characters, as in Kafka's parser).
// src names the input in errors.
func jaasTokens(s, src string, braces bool) ([]jaasToken, error) {
	specials := "=;"
	if braces {
		specials = "=;{}"
	}
	var out []jaasToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c <= ' ':
			i++
		case strings.HasPrefix(s[i:], "//"):
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(s)
			}
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("%s: unterminated comment", src)
			}
			i += j + 4
		case strings.IndexByte(specials, c) >= 0:
			out = append(out, jaasToken{text: string(c), special: true})
			i++
		case c == '"' || c == '\'':
			text, n, err := jaasQuoted(s[i:], src)
			if err != nil {
				return nil, err
			}
			out = append(out, jaasToken{text: text})
			i += n
		default:
			j := i
			for j < len(s) && s[j] > ' ' && strings.IndexByte(specials, s[j]) < 0 && s[j] != '"' && s[j] != '\'' {
				j++
			}
			out = append(out, jaasToken{text: s[i:j]})
			i = j
		}
	}
	return out, nil
}

// jaasQuoted reads a quoted string at the start of s and returns its value
// and the bytes it spans.
func jaasQuoted(s, src string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case q:
			return b.String(), i + 1, nil
		case '\\':
			i++
			if i == len(s) {
				break
			}
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("%s: unterminated quoted value", src)
}
