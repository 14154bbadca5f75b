package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ValueError is a refused config value: the key, the value as given and what
// is allowed. Origin, when known, says where the value came from (a file
// line, an environment variable or a flag). Callers can errors.As for it.
type ValueError struct {
	Key    string
	Value  string
	Reason string
	Origin string
}

func (e *ValueError) Error() string {
	msg := fmt.Sprintf("config: %s=%q: %s", e.Key, e.Value, e.Reason)
	if e.Origin != "" {
		msg += " (set by " + e.Origin + ")"
	}
	return msg
}

// parseBool reads true or false, case-insensitively, as Kafka does. Nothing
// else (1, yes, on) is accepted.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("must be true or false")
}

// parseInt reads a decimal integer that fits in bits.
func parseInt(s string, bits int) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
	if err != nil {
		return 0, fmt.Errorf("must be a %d-bit integer", bits)
	}
	return n, nil
}

// rangeReason describes why n is outside [min, max]. A max of MaxInt32 or
// more counts as no upper bound when n is too small.
func rangeReason(n, min, max int64) string {
	switch {
	case n > max && max >= math.MaxInt32:
		return fmt.Sprintf("must be at most %d", max)
	case max >= math.MaxInt32:
		return fmt.Sprintf("must be at least %d", min)
	default:
		return fmt.Sprintf("must be between %d and %d", min, max)
	}
}

// formatDuration renders d in unit (time.Millisecond or time.Second).
func formatDuration(d, unit time.Duration) string {
	return strconv.FormatInt(int64(d/unit), 10)
}

// stringify renders a raw value from viper (a string from the file or the
// environment, or a typed flag value) as text for the key's parser.
func stringify(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []string:
		return strings.Join(t, ",")
	case []any:
		parts := make([]string, len(t))
		for i, p := range t {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, ",")
	default:
		return fmt.Sprint(v)
	}
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

// errorf builds a reason error (no key; the caller adds it).
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
