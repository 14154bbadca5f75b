package znodes

import (
	"encoding/json"
	"testing"
)

// TestAppendJSONStringJacksonEscapes pins the escaping to Jackson's
// defaults, which differ from encoding/json (no HTML escaping, no \u2028
// escaping, upper-case hex, short escapes for \b and \f).
func TestAppendJSONStringJacksonEscapes(t *testing.T) {
	cases := map[string]string{
		"plain":               `"plain"`,
		"brokers/<default>":   `"brokers/<default>"`,
		"a&b":                 `"a&b"`,
		`quote"back\slash`:    `"quote\"back\\slash"`,
		"\b\f\n\r\t":          `"\b\f\n\r\t"`,
		"\x00\x01\x1f":        `"\u0000\u0001\u001F"`,
		"\x7f":                "\"\x7f\"",
		"é€😀":                 `"é€😀"`,
		"\u2028\u2029":        "\"\u2028\u2029\"",
		"bad\xffutf8":         "\"bad\uFFFDutf8\"",
		"":                    `""`,
		"slash/is/not/quoted": `"slash/is/not/quoted"`,
	}
	for in, want := range cases {
		got := string(appendJSONString(nil, in))
		if got != want {
			t.Errorf("appendJSONString(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("output %s is not valid JSON: %v", got, err)
		}
	}
}

func TestJSONWriterCommas(t *testing.T) {
	var w jsonWriter
	w.beginObject()
	w.key("a")
	w.beginArray()
	w.int(1)
	w.beginObject()
	w.endObject()
	w.beginArray()
	w.endArray()
	w.null()
	w.endArray()
	w.strField("b", "c")
	w.key("d")
	w.raw([]byte(`{"x":[1,2]}`))
	w.endObject()
	const want = `{"a":[1,{},[],null],"b":"c","d":{"x":[1,2]}}`
	if got := string(w.bytes()); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestKindOf(t *testing.T) {
	cases := map[string]jsonKind{
		`null`: kindNull, `true`: kindBool, `false`: kindBool, `"s"`: kindString, `[]`: kindArray,
		`{}`: kindObject, `-1`: kindNumber, `0.5`: kindNumber, "  {": kindObject, ``: kindInvalid, `x`: kindInvalid,
	}
	for in, want := range cases {
		if got := kindOf([]byte(in)); got != want {
			t.Errorf("kindOf(%q) = %v, want %v", in, got, want)
		}
	}
	if kindInvalid.String() != "invalid value" {
		t.Error("kindInvalid name")
	}
}
