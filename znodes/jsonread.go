package znodes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonKind is the JSON type of a raw value, used for "want X, got Y" reasons.
type jsonKind int

const (
	kindInvalid jsonKind = iota
	kindNull
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k jsonKind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindArray:
		return "array"
	case kindObject:
		return "object"
	}
	return "invalid value"
}

// kindOf classifies an already validated JSON value by its first byte.
func kindOf(raw []byte) jsonKind {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return kindInvalid
	}
	switch raw[0] {
	case 'n':
		return kindNull
	case 't', 'f':
		return kindBool
	case '"':
		return kindString
	case '[':
		return kindArray
	case '{':
		return kindObject
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return kindNumber
	}
	return kindInvalid
}

// fields is a decoded JSON object: key to raw value. Duplicate keys keep the
// last value, as Jackson's tree model does.
type fields map[string]json.RawMessage

// decoder carries the znode name into every error it builds.
type decoder struct{ znode string }

func (d decoder) fail(field, format string, args ...any) *DecodeError {
	return &DecodeError{Znode: d.znode, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// clip shortens a literal quoted in an error reason; fuzzers produce huge ones.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

// sub and idx build the JSON paths used in DecodeError.Field.
func sub(parent, key string) string {
	q := strconv.Quote(clip(key))
	if parent == "" {
		return q
	}
	return parent + "." + q
}

func idx(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// parse reads a whole payload, which must be a JSON object. Jackson rejects
// malformed UTF-8, so do we, rather than letting encoding/json substitute
// U+FFFD silently.
func (d decoder) parse(data []byte) (fields, error) {
	if data == nil {
		return nil, &DecodeError{Znode: d.znode, Reason: "null data", Err: ErrNoData}
	}
	if len(data) == 0 {
		return nil, &DecodeError{Znode: d.znode, Reason: "empty data", Err: ErrNoData}
	}
	if !utf8.Valid(data) {
		return nil, d.fail("", "invalid JSON: not valid UTF-8")
	}
	var f fields
	err := json.Unmarshal(data, &f)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return nil, &DecodeError{Znode: d.znode, Reason: "invalid JSON: " + err.Error(), Err: err}
	}
	if k := kindOf(data); k != kindObject {
		return nil, d.fail("", "want JSON object, got %s", k)
	}
	if err != nil {
		return nil, &DecodeError{Znode: d.znode, Reason: "invalid JSON: " + err.Error(), Err: err}
	}
	return f, nil
}

// required returns a key that must be present; null counts as present and is
// then rejected by the typed readers, as Kafka's decoders do.
func (d decoder) required(f fields, parent, key string) (json.RawMessage, error) {
	raw, ok := f[key]
	if !ok {
		return nil, d.fail(sub(parent, key), "required field missing")
	}
	return raw, nil
}

// optional returns a key's value, treating an explicit null like absence.
func optional(f fields, key string) (json.RawMessage, bool) {
	raw, ok := f[key]
	if !ok || kindOf(raw) == kindNull {
		return nil, false
	}
	return raw, true
}

func (d decoder) integer(field string, raw []byte, bits int) (int64, error) {
	if k := kindOf(raw); k != kindNumber {
		return 0, d.fail(field, "want integer, got %s", k)
	}
	s := string(raw)
	if strings.ContainsAny(s, ".eE") {
		return 0, d.fail(field, "want integer, got number %s", clip(s))
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, d.fail(field, "want %d-bit integer, got %s", bits, clip(s))
	}
	return v, nil
}

func (d decoder) int16(field string, raw []byte) (int16, error) {
	v, err := d.integer(field, raw, 16)
	return int16(v), err
}

func (d decoder) int32(field string, raw []byte) (int32, error) {
	v, err := d.integer(field, raw, 32)
	return int32(v), err
}

func (d decoder) int64(field string, raw []byte) (int64, error) {
	return d.integer(field, raw, 64)
}

func (d decoder) str(field string, raw []byte) (string, error) {
	if k := kindOf(raw); k != kindString {
		return "", d.fail(field, "want string, got %s", k)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", d.fail(field, "bad string: %v", err)
	}
	return s, nil
}

func (d decoder) object(field string, raw []byte) (fields, error) {
	if k := kindOf(raw); k != kindObject {
		return nil, d.fail(field, "want object, got %s", k)
	}
	var f fields
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, d.fail(field, "bad object: %v", err)
	}
	return f, nil
}

func (d decoder) array(field string, raw []byte) ([]json.RawMessage, error) {
	if k := kindOf(raw); k != kindArray {
		return nil, d.fail(field, "want array, got %s", k)
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, d.fail(field, "bad array: %v", err)
	}
	return a, nil
}

// int32s reads an array of 32-bit integers. An empty array yields nil.
func (d decoder) int32s(field string, raw []byte) ([]int32, error) {
	if k := kindOf(raw); k != kindArray {
		return nil, d.fail(field, "want array of integers, got %s", k)
	}
	if out, ok := fastInt32s(raw); ok {
		return out, nil
	}
	elems, err := d.array(field, raw)
	if err != nil || len(elems) == 0 {
		return nil, err
	}
	out := make([]int32, len(elems))
	for i, e := range elems {
		if out[i], err = d.int32(idx(field, i), e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// strings reads an array of strings. An empty array yields nil.
func (d decoder) strings(field string, raw []byte) ([]string, error) {
	if k := kindOf(raw); k != kindArray {
		return nil, d.fail(field, "want array of strings, got %s", k)
	}
	elems, err := d.array(field, raw)
	if err != nil || len(elems) == 0 {
		return nil, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		if out[i], err = d.str(idx(field, i), e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stringMap reads an object whose values must all be strings (config values,
// listener maps). An empty object yields nil.
func (d decoder) stringMap(field string, raw []byte) (map[string]string, error) {
	f, err := d.object(field, raw)
	if err != nil || len(f) == 0 {
		return nil, err
	}
	out := make(map[string]string, len(f))
	for _, k := range sortedKeys(f) {
		if out[k], err = d.str(sub(field, k), f[k]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// optionalInt32 reads a key that may be absent (def is then returned) but
// must be an integer when present.
func (d decoder) optionalInt32(f fields, parent, key string, def int32) (int32, error) {
	raw, ok := f[key]
	if !ok {
		return def, nil
	}
	return d.int32(sub(parent, key), raw)
}

// optionalString reads a key that may be absent or null, else a string.
func (d decoder) optionalString(f fields, parent, key string) (string, bool, error) {
	raw, ok := optional(f, key)
	if !ok {
		return "", false, nil
	}
	s, err := d.str(sub(parent, key), raw)
	return s, err == nil, err
}

// requiredInt32 and requiredString combine required with a typed read.
func (d decoder) requiredInt32(f fields, parent, key string) (int32, error) {
	raw, err := d.required(f, parent, key)
	if err != nil {
		return 0, err
	}
	return d.int32(sub(parent, key), raw)
}

func (d decoder) requiredString(f fields, parent, key string) (string, error) {
	raw, err := d.required(f, parent, key)
	if err != nil {
		return "", err
	}
	return d.str(sub(parent, key), raw)
}

// unknownFields returns the keys of f that are not in known, with their
// values compacted, or nil when there are none. They are re-emitted by
// Encode so that a rewrite does not drop what a newer writer added.
func unknownFields(f fields, known ...string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for k, v := range f {
		if contains(known, k) {
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			continue // cannot happen: the whole payload was validated
		}
		if out == nil {
			out = make(map[string]json.RawMessage)
		}
		out[k] = buf.Bytes()
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
