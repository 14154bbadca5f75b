package znodes

import (
	"bytes"
	"math"
)

// fastInt32s parses an already validated JSON array of plain integers
// without reflection; replica lists dominate the controller's failover
// reads. It reports false for anything else (strings, nested values,
// floats, out-of-range numbers), and the caller then takes the slow path,
// which also produces the precise error.
func fastInt32s(raw []byte) ([]int32, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, true
	}
	out := make([]int32, 0, bytes.Count(body, []byte{','})+1)
	for len(body) > 0 {
		elem := body
		if i := bytes.IndexByte(body, ','); i >= 0 {
			elem, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		v, ok := parseInt32Literal(bytes.TrimSpace(elem))
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// parseInt32Literal accepts exactly a JSON integer literal within int32.
func parseInt32Literal(b []byte) (int32, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 10 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, false
	}
	return int32(v), true
}
