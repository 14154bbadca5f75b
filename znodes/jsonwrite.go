package znodes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonWriter emits compact JSON the way Kafka's Jackson ObjectMapper does: no
// whitespace, no trailing newline, non-ASCII text as raw UTF-8, and only the
// escapes Jackson uses (\" \\ \b \f \n \r \t and \u00XX with upper-case hex
// for other control characters). encoding/json differs (it escapes <, > and &,
// which would change "brokers/<default>"), hence this small writer.
type jsonWriter struct {
	buf []byte
	// hasElem[i] records whether container i already holds an element, so
	// the next one is preceded by a comma.
	hasElem  []bool
	afterKey bool
}

func (w *jsonWriter) bytes() []byte { return w.buf }

func (w *jsonWriter) beforeValue() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if n := len(w.hasElem); n > 0 {
		if w.hasElem[n-1] {
			w.buf = append(w.buf, ',')
		}
		w.hasElem[n-1] = true
	}
}

func (w *jsonWriter) open(c byte) {
	w.beforeValue()
	w.buf = append(w.buf, c)
	w.hasElem = append(w.hasElem, false)
}

func (w *jsonWriter) close(c byte) {
	w.hasElem = w.hasElem[:len(w.hasElem)-1]
	w.buf = append(w.buf, c)
}

func (w *jsonWriter) beginObject() { w.open('{') }
func (w *jsonWriter) endObject()   { w.close('}') }
func (w *jsonWriter) beginArray()  { w.open('[') }
func (w *jsonWriter) endArray()    { w.close(']') }

func (w *jsonWriter) key(k string) {
	w.beforeValue()
	w.buf = appendJSONString(w.buf, k)
	w.buf = append(w.buf, ':')
	w.afterKey = true
}

func (w *jsonWriter) int(v int64) {
	w.beforeValue()
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

func (w *jsonWriter) str(s string) {
	w.beforeValue()
	w.buf = appendJSONString(w.buf, s)
}

func (w *jsonWriter) null() {
	w.beforeValue()
	w.buf = append(w.buf, "null"...)
}

// raw writes an already compact JSON value verbatim.
func (w *jsonWriter) raw(v []byte) {
	w.beforeValue()
	w.buf = append(w.buf, v...)
}

// Helpers for the shapes that recur across znodes.

func (w *jsonWriter) intField(k string, v int64) {
	w.key(k)
	w.int(v)
}

func (w *jsonWriter) strField(k, v string) {
	w.key(k)
	w.str(v)
}

func (w *jsonWriter) int32s(vs []int32) {
	w.beginArray()
	for _, v := range vs {
		w.int(int64(v))
	}
	w.endArray()
}

// stringMap writes an object with keys in sorted order (Kafka's own order is
// a Java hash order, which no reader depends on).
func (w *jsonWriter) stringMap(m map[string]string) {
	w.beginObject()
	for _, k := range sortedKeys(m) {
		w.strField(k, m[k])
	}
	w.endObject()
}

// unknown re-emits preserved fields in key order. A key that the payload
// type writes itself, or a value that is not valid JSON, is an error: either
// would produce a document Kafka reads differently from what the caller meant.
func (w *jsonWriter) unknown(znode string, m map[string]json.RawMessage, known ...string) error {
	for _, k := range sortedKeys(m) {
		if contains(known, k) {
			return fmt.Errorf("encode %s: unknown field %q collides with a known field", znode, k)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, m[k]); err != nil {
			return fmt.Errorf("encode %s: unknown field %q: %w", znode, k, err)
		}
		if !utf8.Valid(buf.Bytes()) {
			return fmt.Errorf("encode %s: unknown field %q: not valid UTF-8", znode, k)
		}
		w.key(k)
		w.raw(buf.Bytes())
	}
	return nil
}

const hexUpper = "0123456789ABCDEF"

// appendJSONString quotes s with Jackson's escaping rules. Invalid UTF-8 is
// written as U+FFFD so the output is always valid JSON text.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b = appendASCII(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func appendASCII(b []byte, c byte) []byte {
	switch c {
	case '"':
		return append(b, '\\', '"')
	case '\\':
		return append(b, '\\', '\\')
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	if c < 0x20 {
		return append(b, '\\', 'u', '0', '0', hexUpper[c>>4], hexUpper[c&0xF])
	}
	return append(b, c)
}
