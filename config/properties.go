package config

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// property is one key=value read from a .properties file.
type property struct {
	Key   string
	Value string
	Line  int // 1-based line where the entry starts
}

// parseProperties reads Java .properties text the way
// java.util.Properties.load does, which is how Kafka reads
// server.properties:
//   - a line whose first non-blank character is '#' or '!' is a comment;
//   - a line ending in an odd number of backslashes continues on the next
//     line, whose leading blanks are dropped (comments never continue);
//   - the key ends at the first unescaped '=', ':' or blank; blanks around
//     the separator are skipped;
//   - escapes \t \n \r \f and \uXXXX are decoded, any other \c is c.
//
// A later entry for the same key wins, as in Java; all entries are returned
// in file order so the caller can apply them in turn. Unlike Java, which
// reads the bytes as ISO-8859-1, the text is taken as UTF-8.
func parseProperties(text string) ([]property, error) {
	lines := splitNaturalLines(text)
	var out []property
	for i := 0; i < len(lines); i++ {
		start := i
		line := trimLeftBlank(lines[i])
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Join continuation lines into one logical line.
		for endsInContinuation(line) && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + trimLeftBlank(lines[i])
		}
		if endsInContinuation(line) { // a trailing '\' at end of file is dropped
			line = line[:len(line)-1]
		}
		key, value := splitKeyValue(line)
		k, err := unescapeProperty(key)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", start+1, err)
		}
		v, err := unescapeProperty(value)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", start+1, err)
		}
		out = append(out, property{Key: k, Value: v, Line: start + 1})
	}
	return out, nil
}

// splitNaturalLines splits on \n, \r or \r\n.
func splitNaturalLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.Split(text, "\n")
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\f' }

func trimLeftBlank(s string) string {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return s[i:]
}

// endsInContinuation reports whether s ends in an odd number of backslashes.
func endsInContinuation(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitKeyValue splits a logical line at the first unescaped separator.
func splitKeyValue(line string) (key, value string) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++ // skip the escaped character
			continue
		}
		if c == '=' || c == ':' || isBlank(c) {
			end = i
			break
		}
	}
	key = line[:end]
	rest := trimLeftBlank(line[end:])
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = trimLeftBlank(rest[1:])
	}
	return key, rest
}

// unescapeProperty decodes the escapes Java properties allow.
func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, "\\") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uxxxx escape in %q", s)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\uxxxx escape in %q", s)
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// ReadPropertiesFile reads a Java .properties file, such as the client
// configuration Kafka's tools take with --command-config, into a map (a
// later entry for a key wins, as in java.util.Properties).
func ReadPropertiesFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	props, err := parseProperties(string(data))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	m := make(map[string]string, len(props))
	for _, p := range props {
		m[p.Key] = p.Value
	}
	return m, nil
}
