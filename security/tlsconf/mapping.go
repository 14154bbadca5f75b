package tlsconf

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrNoMatchingRule means no ssl.principal.mapping.rules rule maps a DN;
// the connection is refused.
var ErrNoMatchingRule = errors.New("no principal mapping rule applies")

// MappingRules are parsed ssl.principal.mapping.rules. The zero value
// holds no rules and maps nothing; ParseMappingRules("DEFAULT") keeps DNs.
type MappingRules struct {
	rules []mappingRule
	text  string
}

type mappingRule struct {
	isDefault   bool
	pattern     *regexp.Regexp
	replacement string // in regexp.Expand form
	lower       bool
	upper       bool
}

// ParseMappingRules reads ssl.principal.mapping.rules: comma-separated
// DEFAULT and RULE:<regex>/<replacement>/[LU] entries, where '/' inside
// the regex or the replacement is escaped as \/. Empty means DEFAULT.
func ParseMappingRules(s string) (MappingRules, error) {
	mr := MappingRules{text: s}
	if strings.TrimSpace(s) == "" {
		s = "DEFAULT"
	}
	for rest := strings.TrimSpace(s); rest != ""; {
		var r mappingRule
		var err error
		if after, ok := strings.CutPrefix(rest, "DEFAULT"); ok {
			r.isDefault, rest = true, after
		} else if after, ok := strings.CutPrefix(rest, "RULE:"); ok {
			if r, rest, err = parseRule(after); err != nil {
				return MappingRules{}, fmt.Errorf("ssl.principal.mapping.rules: %w", err)
			}
		} else {
			return MappingRules{}, fmt.Errorf("ssl.principal.mapping.rules: invalid rule at %q", rest)
		}
		rest = strings.TrimSpace(rest)
		if rest != "" {
			after, ok := strings.CutPrefix(rest, ",")
			if !ok {
				return MappingRules{}, fmt.Errorf("ssl.principal.mapping.rules: want ',' before %q", rest)
			}
			rest = strings.TrimSpace(after)
		}
		mr.rules = append(mr.rules, r)
	}
	return mr, nil
}

// parseRule reads "<regex>/<replacement>/[LU]" and returns what follows.
func parseRule(s string) (mappingRule, string, error) {
	var r mappingRule
	pat, rest, ok := cutUnescaped(s)
	if !ok {
		return r, "", fmt.Errorf("rule %q has no replacement", s)
	}
	repl, rest, ok := cutUnescaped(rest)
	if !ok {
		return r, "", fmt.Errorf("rule %q does not end with '/'", s)
	}
	switch {
	case strings.HasPrefix(rest, "L"):
		r.lower, rest = true, rest[1:]
	case strings.HasPrefix(rest, "U"):
		r.upper, rest = true, rest[1:]
	}
	re, err := regexp.Compile(`^(?:` + pat + `)$`)
	if err != nil {
		return r, "", fmt.Errorf("rule pattern %q: %w", pat, err)
	}
	r.pattern, r.replacement = re, javaReplacement(repl, re.NumSubexp())
	// Kafka ignores anything up to the next comma after the flags.
	if i := strings.IndexByte(rest, ','); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	return r, rest, nil
}

// cutUnescaped splits s at its first '/' not preceded by a backslash. The
// escapes stay in the first part, where the regex engine reads "\/" as
// '/'.
func cutUnescaped(s string) (before, after string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '/':
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

// javaReplacement converts a Java replacement string ($n groups, \x
// escapes) to regexp.Expand's template (${n}, $$). As in Java, a group
// number takes digits for as long as it stays a valid group; a reference
// to a group the pattern lacks is kept literally, as Kafka escapes those.
func javaReplacement(s string, groups int) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(s[i])
			}
		case c == '$':
			n, j := 0, i+1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' && n*10+int(s[j]-'0') <= groups {
				n = n*10 + int(s[j]-'0')
				j++
			}
			if j == i+1 {
				b.WriteString("$$")
				continue
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Map returns the principal name for dn: the first rule that applies
// decides; ErrNoMatchingRule when none does.
func (mr MappingRules) Map(dn string) (string, error) {
	for _, r := range mr.rules {
		if r.isDefault {
			return dn, nil
		}
		m := r.pattern.FindStringSubmatchIndex(dn)
		if m == nil {
			continue
		}
		name := string(r.pattern.ExpandString(nil, r.replacement, dn, m))
		switch {
		case r.lower:
			name = strings.ToLower(name)
		case r.upper:
			name = strings.ToUpper(name)
		}
		return name, nil
	}
	return "", fmt.Errorf("%w to %q (rules %q)", ErrNoMatchingRule, dn, mr.text)
}
