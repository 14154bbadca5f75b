package differential

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Difference is one field on which the two runs' normalized answers
// disagree.
type Difference struct {
	// Path names the field, such as Topics[foo].Partitions[0].Leader:
	// entries of a list are named by their key (topic, config or
	// resource name, node or partition id) when they have one, so that a
	// missing entry does not shift every later one.
	Path string
	// Kafka and Kzadmind are the two values, formatted.
	Kafka, Kzadmind string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: kafka=%s kzadmind=%s", d.Path, d.Kafka, d.Kzadmind)
}

// Absent and present stand for a list entry one side lacks.
const (
	absent  = "<absent>"
	present = "<present>"
)

// Diff compares two values of the same type (normalized kmsg responses)
// field by field. UnknownTags and Version are skipped: both runs decode
// the same version, and neither side sends tags kmsg does not know.
func Diff(kafka, kzadmind any) []Difference {
	var d differ
	a, b := reflect.ValueOf(kafka), reflect.ValueOf(kzadmind)
	if a.Type() != b.Type() {
		return []Difference{{Path: "<type>", Kafka: a.Type().String(), Kzadmind: b.Type().String()}}
	}
	d.value("", a, b)
	return d.out
}

type differ struct{ out []Difference }

func (d *differ) add(path, a, b string) {
	if strings.HasSuffix(path, "ErrorCode") {
		a, b = errorName(a), errorName(b)
	}
	d.out = append(d.out, Difference{Path: path, Kafka: a, Kzadmind: b})
}

func (d *differ) value(path string, a, b reflect.Value) {
	switch {
	case a.Kind() == reflect.Pointer && !a.IsNil() && !b.IsNil():
		d.value(path, a.Elem(), b.Elem())
	case a.Kind() == reflect.Struct:
		d.fields(path, a, b)
	case a.Kind() == reflect.Slice && a.Type().Elem().Kind() == reflect.Struct:
		d.entries(path, a, b)
	default:
		if fa, fb := format(a), format(b); fa != fb {
			d.add(path, fa, fb)
		}
	}
}

func (d *differ) fields(path string, a, b reflect.Value) {
	for i := range a.NumField() {
		name := a.Type().Field(i).Name
		if name == "UnknownTags" || name == "Version" {
			continue
		}
		p := name
		if path != "" {
			p = path + "." + name
		}
		d.value(p, a.Field(i), b.Field(i))
	}
}

// entries compares two lists of structs. When the entries have a key,
// they are matched by key: an entry one side lacks is one difference, on
// path[key], and a different order of the entries both have is another,
// on path[order]. Entries without a key are matched by index.
func (d *differ) entries(path string, a, b reflect.Value) {
	if a.IsNil() != b.IsNil() {
		d.add(path, format(a), format(b))
		return
	}
	ka, kb := entryKeys(a), entryKeys(b)
	if ka == nil {
		d.byIndex(path, a, b)
		return
	}
	inA, inB := indexOf(ka), indexOf(kb)
	if oa, ob := common(ka, inB), common(kb, inA); !slices.Equal(oa, ob) {
		d.add(path+"[order]", "["+strings.Join(oa, " ")+"]", "["+strings.Join(ob, " ")+"]")
	}
	for i, k := range ka {
		p := path + "[" + k + "]"
		if j, ok := inB[k]; ok {
			d.value(p, a.Index(i), b.Index(j))
		} else {
			d.add(p, present, absent)
		}
	}
	for _, k := range kb {
		if _, ok := inA[k]; !ok {
			d.add(path+"["+k+"]", absent, present)
		}
	}
}

func indexOf(keys []string) map[string]int {
	m := make(map[string]int, len(keys))
	for i, k := range keys {
		m[k] = i
	}
	return m
}

// common is keys without those not in other, in keys' order.
func common(keys []string, other map[string]int) []string {
	var out []string
	for _, k := range keys {
		if _, ok := other[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

func (d *differ) byIndex(path string, a, b reflect.Value) {
	if a.Len() != b.Len() {
		d.add(path+".length", strconv.Itoa(a.Len()), strconv.Itoa(b.Len()))
	}
	for i := range min(a.Len(), b.Len()) {
		d.value(path+"["+strconv.Itoa(i)+"]", a.Index(i), b.Index(i))
	}
}

// keyFields are the fields that identify an entry of a kmsg list, by
// preference.
var keyFields = []string{"Topic", "Name", "ResourceName", "NodeID", "Partition", "User", "Key"}

// entryKeys labels each entry of a list of structs by its key field, the
// second and later entries with the same key as key#2, key#3...; nil when
// the type has no key field.
func entryKeys(list reflect.Value) []string {
	field := ""
	for _, f := range keyFields {
		if _, ok := list.Type().Elem().FieldByName(f); ok {
			field = f
			break
		}
	}
	if field == "" {
		return nil
	}
	keys := make([]string, list.Len())
	seen := map[string]int{}
	for i := range keys {
		k := keyLabel(list.Index(i).FieldByName(field))
		seen[k]++
		if n := seen[k]; n > 1 {
			k += "#" + strconv.Itoa(n)
		}
		keys[i] = k
	}
	return keys
}

// keyLabel formats a key for a path; long names (a 250-character topic)
// are cut, keeping their length.
func keyLabel(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "null"
		}
		v = v.Elem()
	}
	s := fmt.Sprint(v.Interface())
	if len(s) > 40 {
		s = fmt.Sprintf("%s…(%d chars)", s[:16], len(s))
	}
	return s
}

// Format renders any value as Diff renders a differing one.
func Format(v any) string { return format(reflect.ValueOf(v)) }

// format renders a leaf value: strings quoted, null for nil pointers and
// lists (an empty list is []), topic ids as zero or non-zero.
func format(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "null"
		}
		return format(v.Elem())
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Slice:
		if v.IsNil() {
			return "null"
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = format(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Array:
		if id, ok := v.Interface().([16]byte); ok {
			return formatID(id)
		}
	case reflect.Struct:
		parts := make([]string, 0, v.NumField())
		for i := range v.NumField() {
			if name := v.Type().Field(i).Name; name != "UnknownTags" {
				parts = append(parts, name+":"+format(v.Field(i)))
			}
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprint(v.Interface())
}

func formatID(id [16]byte) string {
	switch id {
	case [16]byte{}:
		return "zero-id"
	case topicIDPlaceholder:
		return "non-zero-id"
	}
	return fmt.Sprintf("%x", id)
}

// errorName adds the error's name to a formatted error code.
func errorName(code string) string {
	n, err := strconv.Atoi(code)
	if err != nil || n == 0 {
		return code
	}
	// TypedErrorForCode says UNKNOWN_SERVER_ERROR for codes it does not
	// know, which would mislead; only -1 is that.
	if e := kerr.TypedErrorForCode(int16(n)); e != nil && (e.Code == int16(n)) {
		return fmt.Sprintf("%d(%s)", n, e.Message)
	}
	return code
}

// Match reports whether s matches pattern, in which '*' stands for any
// run of characters (including none) and everything else for itself; the
// allowlist's patterns are written this way because field paths are full
// of the characters path.Match treats specially ('[', ']').
func Match(pattern, s string) bool {
	// Classic greedy matching with one backtrack point: the last star.
	star, resume := -1, 0
	p, i := 0, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, resume = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p, i = p+1, i+1
		case star >= 0:
			resume++
			p, i = star+1, resume
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
