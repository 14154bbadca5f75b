package config

// Kafka's ConfigDef.parse (clients/src/main/java/org/apache/kafka/common/
// config/ConfigDef.java: parseType and the validators) over the dynamic
// broker configs of kafkabroker_types.go, with Kafka's messages, so that
// kzadmind and kzadmin configs --zookeeper refuse the values a Kafka 3.9
// broker refuses, with the same words.

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

func (t kafkaType) String() string {
	return [...]string{"", "BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}[t]
}

// bits is the size of an integer type.
func (t kafkaType) bits() int {
	switch t {
	case kafkaShort:
		return 16
	case kafkaInt:
		return 32
	}
	return 64
}

// invalidValue is the message of Kafka's ConfigException(name, value,
// reason).
func invalidValue(value, name, reason string) error {
	return errors.New("Invalid value " + value + " for configuration " + name + ": " + reason)
}

// validate parses raw as d's type and runs d's validator, as
// ConfigDef.parseValue does. A value that does not parse is named as
// given; a value a validator refuses is named as parsed (trimmed, a
// number as Java prints it, the offending item of a list).
func (d kafkaConfigDef) validate(raw string) error {
	trimmed := javaTrim(raw)
	switch d.typ {
	case kafkaBoolean:
		if !strings.EqualFold(trimmed, "true") && !strings.EqualFold(trimmed, "false") {
			return invalidValue(raw, d.name, "Expected value to be either true or false")
		}
	case kafkaInt, kafkaShort, kafkaLong:
		n, ok := parseJavaInteger(trimmed, d.typ.bits())
		if !ok {
			return invalidValue(raw, d.name, "Not a number of type "+d.typ.String())
		}
		return d.check.number(d.name, float64(n), strconv.FormatInt(n, 10))
	case kafkaDouble:
		f, ok := parseJavaDouble(trimmed)
		if !ok {
			return invalidValue(raw, d.name, "Not a number of type DOUBLE")
		}
		return d.check.number(d.name, f, javaDoubleString(f))
	case kafkaString:
		return d.check.str(d.name, trimmed)
	case kafkaList:
		for _, item := range splitKafkaList(raw) {
			if err := d.check.str(d.name, item); err != nil {
				return err
			}
		}
	case kafkaClass:
		// Kafka loads the class; kzadmin cannot, so it takes any name
		// but the empty one, which no class has.
		if trimmed == "" {
			return invalidValue(raw, d.name, "Class "+raw+" could not be found.")
		}
	}
	return nil // PASSWORD: any string
}

// number is ConfigDef.Range (which compares as doubles) and GZIP's level
// validator; shown is the value as Kafka prints it.
func (c kafkaCheck) number(name string, n float64, shown string) error {
	switch {
	case c.gzip && (n > 9 || (n < 1 && n != -1)):
		return invalidValue(shown, name, "Value must be between 1 and 9 or equal to -1")
	case c.min != nil && n < float64(*c.min):
		return invalidValue(shown, name, "Value must be at least "+strconv.FormatInt(*c.min, 10))
	case c.max != nil && n > float64(*c.max):
		return invalidValue(shown, name, "Value must be no more than "+strconv.FormatInt(*c.max, 10))
	}
	return nil
}

// str is ConfigDef.ValidString (case-sensitive), also what ValidList
// applies to each item.
func (c kafkaCheck) str(name, s string) error {
	if len(c.in) == 0 {
		return nil
	}
	for _, v := range c.in {
		if s == v {
			return nil
		}
	}
	return invalidValue(s, name, "String must be one of: "+strings.Join(c.in, ", "))
}

// javaTrim is String.trim, which strips the characters up to U+0020 (the
// ASCII controls too) but no other Unicode space.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// parseJavaInteger is Integer.parseInt, Short.parseShort or
// Long.parseLong (by bits) of a trimmed string: an optional sign, then
// decimal digits, which Character.digit lets be any Unicode decimal digit
// of the Basic Multilingual Plane (Java reads UTF-16 units), within the
// type's range.
func parseJavaInteger(s string, bits int) (int64, bool) {
	ascii := make([]byte, 0, len(s))
	for i, r := range s {
		if i == 0 && (r == '+' || r == '-') {
			ascii = append(ascii, byte(r))
			continue
		}
		d, ok := javaDigit(r)
		if !ok {
			return 0, false
		}
		ascii = append(ascii, '0'+d)
	}
	n, err := strconv.ParseInt(string(ascii), 10, bits)
	return n, err == nil
}

// javaDigit is Character.digit(ch, 10) of a UTF-16 unit: the value of a
// decimal digit (Unicode category Nd, whose digits come in runs of ten
// from zero).
func javaDigit(r rune) (byte, bool) {
	if r > 0xFFFF || !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	zero := r
	for unicode.Is(unicode.Nd, zero-1) {
		zero--
	}
	return byte((r - zero) % 10), true
}

// javaDoubleSyntax is what Double.parseDouble takes once trimmed
// (FloatingDecimal.readJavaFormatString): NaN and Infinity, spelt so;
// decimal and hexadecimal (with a binary exponent) numbers, ASCII digits
// only, with an optional f/d suffix; no underscores.
var javaDoubleSyntax = regexp.MustCompile(`^[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?` +
	`|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)$`)

// parseJavaDouble is Double.parseDouble of a trimmed string. Numbers too
// large or too small for a double are infinite or zero, not errors.
func parseJavaDouble(s string) (float64, bool) {
	if !javaDoubleSyntax.MatchString(s) {
		return 0, false
	}
	switch strings.TrimLeft(s, "+-") {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if s[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	s = strings.TrimRight(s, "fFdD")
	f, err := strconv.ParseFloat(s, 64)
	var ne *strconv.NumError
	if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
		err = nil
	}
	return f, err == nil
}

// JavaTrim is String.trim, which Kafka's ConfigDef applies to every
// value it parses: it strips the characters up to U+0020 and no other
// Unicode space.
func JavaTrim(s string) string { return javaTrim(s) }

// ParseJavaInteger parses v as Kafka's ConfigDef parses a SHORT, INT or
// LONG (bits 16, 32 or 64): trimmed as String.trim does, then as
// Integer.parseInt or Long.parseLong, which take any Unicode decimal
// digit and an optional sign.
func ParseJavaInteger(v string, bits int) (int64, bool) { return parseJavaInteger(javaTrim(v), bits) }

// ParseJavaDouble parses v as Kafka's ConfigDef parses a DOUBLE: trimmed,
// then as Double.parseDouble (NaN and Infinity spelt so, f/d suffixes,
// hexadecimal with a binary exponent).
func ParseJavaDouble(v string) (float64, bool) { return parseJavaDouble(javaTrim(v)) }

// SplitKafkaList splits v as Kafka's ConfigDef parses a LIST: trimmed,
// the empty string is the empty list, items split at commas with the
// blanks (Java's \s) around them, empty items kept.
func SplitKafkaList(v string) []string { return splitKafkaList(v) }

// FormatJavaDouble prints f as Java's Double.toString does, which is how
// Kafka shows a DOUBLE config's parsed value (javaDoubleString).
func FormatJavaDouble(f float64) string { return javaDoubleString(f) }

// javaDoubleString is Double.toString: plain from 10^-3 up to 10^7,
// computerized scientific notation ("1.0E10") outside, always with a
// fractional digit. Go prints the shortest digits that read back the
// same; Java 17 does too, but for a few values a digit more.
func javaDoubleString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0 && math.Signbit(f):
		return "-0.0"
	case f == 0:
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// kafkaListSeparator is ConfigDef's COMMA_WITH_WHITESPACE, with Java's \s.
var kafkaListSeparator = regexp.MustCompile(`[ \t\n\x0B\f\r]*,[ \t\n\x0B\f\r]*`)

// splitKafkaList is ConfigDef's LIST parsing: trimmed, the empty string
// is the empty list, and items are split at commas with the blanks around
// them, empty items kept.
func splitKafkaList(raw string) []string {
	trimmed := javaTrim(raw)
	if trimmed == "" {
		return nil
	}
	return kafkaListSeparator.Split(trimmed, -1)
}

// parseKafkaBrokerValues is ConfigDef.parse of DynamicConfig.Broker over
// values: each config it defines that values sets is parsed and
// validated, in the ConfigDef's order, and the first refusal is the
// error. Other names are custom configs to it.
func parseKafkaBrokerValues(values map[string]string) error {
	for _, d := range kafkaDynamicBrokerConfigDefs {
		if v, ok := values[d.name]; ok {
			if err := d.validate(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// kafkaBaseValues is DynamicBrokerConfig.validateConfigTypes's view of a
// change's configs: a listener-prefixed config under its base name, put
// in the order Kafka's Properties gives them, so that the last of a
// config and its prefixed forms is the one checked. A name without a
// value has nothing to check.
func kafkaBaseValues(names []string, values map[string]string) map[string]string {
	base := make(map[string]string, len(values))
	for _, n := range brokerPropsOrder(names) {
		if v, ok := values[n]; ok {
			base[KafkaBaseConfigName(n)] = v
		}
	}
	return base
}

// ValidateKafkaBrokerValues is DynamicConfig.Broker.validate of a broker
// entity's complete configs, which Kafka's AdminZkClient makes of what it
// writes: names taken as they are, so a listener-prefixed config is a
// custom one to it. The error carries Kafka's message.
func ValidateKafkaBrokerValues(values map[string]string) error {
	return parseKafkaBrokerValues(values)
}

// kafkaBadValues is DynamicBrokerConfig.removeInvalidConfigs: when the
// stored configs fail validateConfigTypes together, the ones that fail it
// on their own, which a broker ignores.
func kafkaBadValues(names []string, values map[string]string) map[string]bool {
	if parseKafkaBrokerValues(kafkaBaseValues(names, values)) == nil {
		return nil
	}
	bad := map[string]bool{}
	for _, n := range names {
		if v, ok := values[n]; ok && parseKafkaBrokerValues(map[string]string{KafkaBaseConfigName(n): v}) != nil {
			bad[n] = true
		}
	}
	return bad
}
