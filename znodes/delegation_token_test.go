package znodes_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// user is the principal User:<name>, the only type Kafka's token APIs make.
func user(name string) znodes.TokenPrincipal { return znodes.TokenPrincipal{Type: "User", Name: name} }

func decodeToken(b []byte) (znodes.DelegationToken, error) {
	return znodes.DecodeDelegationToken("tok", b)
}

// TestDelegationTokenEncodeExact pins Encode's bytes: Kafka's
// toJsonCompatibleMap keys, version 3, principals sanitized as
// Sanitizer.sanitize does (URLEncoder, then '*' and '+' percent-encoded),
// renewers as an array even when empty, timestamps as plain longs.
func TestDelegationTokenEncodeExact(t *testing.T) {
	cases := []struct {
		name string
		tok  znodes.DelegationToken
		want string
	}{
		{
			name: "one renewer",
			tok: znodes.DelegationToken{Version: 3, ID: "abc", Owner: user("alice"), Requester: user("alice"),
				Renewers: []znodes.TokenPrincipal{user("bob")}, IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
			want: `{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Aalice","renewers":["User%3Abob"],` +
				`"issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"abc"}`,
		},
		{
			// Encode writes version 3 whatever was read: Kafka rewrites an
			// old token in the current format.
			name: "no renewers, read as version 1",
			tok:  znodes.DelegationToken{Version: 1, ID: "x", Owner: user("alice"), Requester: user("alice")},
			want: `{"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Aalice","renewers":[],` +
				`"issueTimestamp":0,"maxTimestamp":0,"expiryTimestamp":0,"tokenId":"x"}`,
		},
		{
			name: "empty renewer slice is the same as nil",
			tok: znodes.DelegationToken{ID: "x", Owner: user("a"), Requester: user("b"),
				Renewers: []znodes.TokenPrincipal{}},
			want: `{"version":3,"owner":"User%3Aa","tokenRequester":"User%3Ab","renewers":[],` +
				`"issueTimestamp":0,"maxTimestamp":0,"expiryTimestamp":0,"tokenId":"x"}`,
		},
		{
			name: "odd principals are sanitized",
			tok: znodes.DelegationToken{ID: "Zm9vYmFyYmF6cXV4MTIzNA", Owner: user("CN=alice smith,O=Acme"),
				Requester: znodes.TokenPrincipal{Type: "Group", Name: "ops*"},
				Renewers:  []znodes.TokenPrincipal{user("é"), user("a+b"), user("x:y"), user(""), user("a.b-c_d~")},
				IssueMs:   1700000000123, MaxMs: 1700604800123, ExpiryMs: 1700086400123},
			want: `{"version":3,"owner":"User%3ACN%3Dalice%20smith%2CO%3DAcme","tokenRequester":"Group%3Aops%2A",` +
				`"renewers":["User%3A%C3%A9","User%3Aa%2Bb","User%3Ax%3Ay","User%3A","User%3Aa.b-c_d%7E"],` +
				`"issueTimestamp":1700000000123,"maxTimestamp":1700604800123,"expiryTimestamp":1700086400123,` +
				`"tokenId":"Zm9vYmFyYmF6cXV4MTIzNA"}`,
		},
		{
			name: "extreme timestamps",
			tok: znodes.DelegationToken{ID: "t", Owner: user("a"), Requester: user("a"),
				IssueMs: -9223372036854775808, MaxMs: 9223372036854775807, ExpiryMs: -1},
			want: `{"version":3,"owner":"User%3Aa","tokenRequester":"User%3Aa","renewers":[],` +
				`"issueTimestamp":-9223372036854775808,"maxTimestamp":9223372036854775807,"expiryTimestamp":-1,"tokenId":"t"}`,
		},
		{
			// The id is written as a JSON string with Jackson's escaping;
			// Kafka's ids are base64url, but the codec must not break on others.
			name: "token id needing JSON escapes",
			tok:  znodes.DelegationToken{ID: "a\"b\\c\n", Owner: user("a"), Requester: user("a")},
			want: `{"version":3,"owner":"User%3Aa","tokenRequester":"User%3Aa","renewers":[],` +
				`"issueTimestamp":0,"maxTimestamp":0,"expiryTimestamp":0,"tokenId":"a\"b\\c\n"}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.tok.Encode()
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if string(got) != c.want {
				t.Fatalf("encode\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestDelegationTokenRoundTrip: what Encode writes decodes to the same
// token (Version 3, renewers nil when there are none).
func TestDelegationTokenRoundTrip(t *testing.T) {
	cases := map[string]znodes.DelegationToken{
		"no renewers": {Version: 3, ID: "abc", Owner: user("alice"), Requester: user("alice"),
			IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		"requester differs from owner": {Version: 3, ID: "abc", Owner: user("alice"), Requester: user("admin"),
			Renewers: []znodes.TokenPrincipal{user("bob")}, IssueMs: 10, MaxMs: 30, ExpiryMs: 20},
		"several renewers, order kept": {Version: 3, ID: "Zm9vYmFyYmF6cXV4MTIzNA", Owner: user("alice"),
			Requester: user("alice"),
			Renewers:  []znodes.TokenPrincipal{user("zed"), user("bob"), user("alice"), user("bob")},
			IssueMs:   1700000000123, MaxMs: 1700604800123, ExpiryMs: 1700086400123},
		"odd names": {Version: 3, ID: "id with spaces/and:colons", Owner: user("CN=alice smith,O=Acme"),
			Requester: znodes.TokenPrincipal{Type: "Group", Name: "ops*+%"},
			Renewers: []znodes.TokenPrincipal{user("é日本"), user(""), user("x:y:z"),
				{Type: "", Name: "typeless"}, {Type: "", Name: ""}},
			IssueMs: -1, MaxMs: 9223372036854775807, ExpiryMs: -9223372036854775808},
		"unicode token id": {Version: 3, ID: "ключ\t\"", Owner: user("a"), Requester: user("a")},
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) { roundTrip(t, tok, decodeToken) })
	}
}

// TestDelegationTokenDecodeKafka decodes payloads as Kafka 3.9 and older
// write them. Kafka builds the JSON from an immutable Scala Map, whose key
// order is a hash order, so no order may be assumed.
func TestDelegationTokenDecodeKafka(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want znodes.DelegationToken
	}{
		{
			name: "version 3 in Scala map order",
			in: `{"tokenId":"Zm9vYmFyYmF6cXV4MTIzNA","expiryTimestamp":1700086400123,"renewers":["User%3Abob","User%3Acarol"],` +
				`"owner":"User%3Aalice","maxTimestamp":1700604800123,"tokenRequester":"User%3Aadmin",` +
				`"issueTimestamp":1700000000123,"version":3}`,
			want: znodes.DelegationToken{Version: 3, ID: "Zm9vYmFyYmF6cXV4MTIzNA", Owner: user("alice"),
				Requester: user("admin"), Renewers: []znodes.TokenPrincipal{user("bob"), user("carol")},
				IssueMs: 1700000000123, MaxMs: 1700604800123, ExpiryMs: 1700086400123},
		},
		{
			name: "version 3 pretty-printed, no renewers",
			in: "{\n  \"version\" : 3,\n  \"owner\" : \"User%3Aalice\",\n  \"tokenRequester\" : \"User%3Aalice\",\n" +
				"  \"renewers\" : [ ],\n  \"issueTimestamp\" : 1,\n  \"maxTimestamp\" : 3,\n  \"expiryTimestamp\" : 2,\n" +
				"  \"tokenId\" : \"abc\"\n}",
			want: znodes.DelegationToken{Version: 3, ID: "abc", Owner: user("alice"), Requester: user("alice"),
				IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		},
		{
			// Before version 3 (Kafka < 3.3) no requester is stored; Kafka
			// reads the owner as the requester.
			name: "version 1 without tokenRequester",
			in: `{"version":1,"owner":"User%3Aalice","renewers":["User%3Abob"],"issueTimestamp":1,` +
				`"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"abc"}`,
			want: znodes.DelegationToken{Version: 1, ID: "abc", Owner: user("alice"), Requester: user("alice"),
				Renewers: []znodes.TokenPrincipal{user("bob")}, IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		},
		{
			name: "version 2 without tokenRequester",
			in: `{"expiryTimestamp":2,"tokenId":"abc","version":2,"renewers":[],"owner":"User%3Aalice",` +
				`"issueTimestamp":1,"maxTimestamp":3}`,
			want: znodes.DelegationToken{Version: 2, ID: "abc", Owner: user("alice"), Requester: user("alice"),
				IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		},
		{
			// Kafka does not even look at tokenRequester before version 3,
			// so a present (or malformed) one changes nothing.
			name: "version 2 ignores a stray tokenRequester",
			in: `{"version":2,"owner":"User%3Aalice","tokenRequester":"User%3Amallory","renewers":[],` +
				`"issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"abc"}`,
			want: znodes.DelegationToken{Version: 2, ID: "abc", Owner: user("alice"), Requester: user("alice"),
				IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		},
		{
			name: "version 1 ignores a malformed tokenRequester",
			in: `{"version":1,"owner":"User%3Aalice","tokenRequester":42,"renewers":[],` +
				`"issueTimestamp":1,"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"abc"}`,
			want: znodes.DelegationToken{Version: 1, ID: "abc", Owner: user("alice"), Requester: user("alice"),
				IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		},
		{
			// Sanitizer.desanitize is URLDecoder: '+' is a space, escapes
			// are case-insensitive, and unescaped characters pass through.
			name: "desanitizing is URL decoding",
			in: `{"version":3,"owner":"User%3ACN%3dalice+smith%2CO%3DAcme","tokenRequester":"User:plain",` +
				`"renewers":["User%3A%C3%A9","User%3Ax%3Ay","User%3A","%3Atypeless"],"issueTimestamp":1,` +
				`"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"abc"}`,
			want: znodes.DelegationToken{Version: 3, ID: "abc", Owner: user("CN=alice smith,O=Acme"),
				Requester: user("plain"),
				Renewers: []znodes.TokenPrincipal{user("é"), user("x:y"), user(""),
					{Type: "", Name: "typeless"}},
				IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		},
		{
			// Kafka ignores keys it does not know; so does the decoder.
			name: "unknown keys ignored",
			in: `{"version":3,"owner":"User%3Aa","tokenRequester":"User%3Aa","renewers":[],"issueTimestamp":1,` +
				`"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"abc","hmac":"c2VjcmV0","extra":{"x":[1]}}`,
			want: znodes.DelegationToken{Version: 3, ID: "abc", Owner: user("a"), Requester: user("a"),
				IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		},
		{
			// The id inside the payload is what Kafka uses; it is not
			// checked against the znode name.
			name: "tokenId differs from the znode name",
			in: `{"version":3,"owner":"User%3Aa","tokenRequester":"User%3Aa","renewers":[],"issueTimestamp":1,` +
				`"maxTimestamp":3,"expiryTimestamp":2,"tokenId":"other"}`,
			want: znodes.DelegationToken{Version: 3, ID: "other", Owner: user("a"), Requester: user("a"),
				IssueMs: 1, MaxMs: 3, ExpiryMs: 2},
		},
		{
			name: "negative and extreme timestamps",
			in: `{"version":3,"owner":"User%3Aa","tokenRequester":"User%3Aa","renewers":[],` +
				`"issueTimestamp":-9223372036854775808,"maxTimestamp":9223372036854775807,"expiryTimestamp":-0,"tokenId":""}`,
			want: znodes.DelegationToken{Version: 3, ID: "", Owner: user("a"), Requester: user("a"),
				IssueMs: -9223372036854775808, MaxMs: 9223372036854775807, ExpiryMs: 0},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeToken([]byte(c.in))
			if err != nil {
				t.Fatalf("decode(%s): %v", c.in, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("decode(%s)\n got %#v\nwant %#v", c.in, got, c.want)
			}
			// Rewriting what was read keeps everything but the version,
			// which becomes 3.
			enc, err := got.Encode()
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			again, err := decodeToken(enc)
			if err != nil {
				t.Fatalf("decode(%s): %v", enc, err)
			}
			want := c.want
			want.Version = znodes.DelegationTokenVersion
			if !reflect.DeepEqual(again, want) {
				t.Fatalf("rewrite %s\n got %#v\nwant %#v", enc, again, want)
			}
		})
	}
}

// tokenJSON is a valid version 3 payload with its keys as a map, so that a
// case can drop or replace one key.
func tokenJSON(change map[string]string, drop ...string) string {
	keys := []string{"version", "owner", "tokenRequester", "renewers", "issueTimestamp",
		"maxTimestamp", "expiryTimestamp", "tokenId"}
	vals := map[string]string{
		"version": `3`, "owner": `"User%3Aalice"`, "tokenRequester": `"User%3Aalice"`,
		"renewers": `["User%3Abob"]`, "issueTimestamp": `1`, "maxTimestamp": `3`,
		"expiryTimestamp": `2`, "tokenId": `"abc"`,
	}
	for k, v := range change {
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	var b strings.Builder
	b.WriteByte('{')
	for _, k := range keys {
		skip := false
		for _, d := range drop {
			skip = skip || d == k
		}
		if skip {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + k + `":` + vals[k])
	}
	b.WriteByte('}')
	return b.String()
}

func TestDelegationTokenJSONHelperIsValid(t *testing.T) {
	// The error cases below rely on tokenJSON's base payload being good.
	if _, err := decodeToken([]byte(tokenJSON(nil))); err != nil {
		t.Fatalf("base payload %s: %v", tokenJSON(nil), err)
	}
}

// TestDelegationTokenDecodeErrors: everything Kafka's fromBytes refuses
// (require, DecodeJson, parseKafkaPrincipal, URLDecoder) is a *DecodeError
// naming /delegation_token/tokens/<id> and the field at fault.
func TestDelegationTokenDecodeErrors(t *testing.T) {
	const z = `znode /delegation_token/tokens/tok: `
	set := func(k, v string) string { return tokenJSON(map[string]string{k: v}) }
	without := func(k string) string { return tokenJSON(nil, k) }
	cases := []struct {
		name string
		in   string
		want string
	}{
		// Whole payload.
		{"invalid JSON", `{"version":3,`, z + `invalid JSON: unexpected end of JSON input`},
		{"trailing garbage", tokenJSON(nil) + `x`, z + `invalid JSON: invalid character 'x' after top-level value`},
		{"array", `[]`, z + `want JSON object, got array`},
		{"JSON null", `null`, z + `want JSON object, got null`},
		{"string", `"User%3Aalice"`, z + `want JSON object, got string`},
		{"number", `3`, z + `want JSON object, got number`},
		{"invalid UTF-8", "{\"version\":3,\"owner\":\"\xff\"}", z + `invalid JSON: not valid UTF-8`},

		// Version: Kafka requires 0 < version <= 3.
		{"version 0", set("version", `0`), z + `field "version": version 0 is not supported (1 to 3 are)`},
		{"version 4", set("version", `4`), z + `field "version": version 4 is not supported (1 to 3 are)`},
		{"version -1", set("version", `-1`), z + `field "version": version -1 is not supported (1 to 3 are)`},
		{"version string", set("version", `"3"`), z + `field "version": want integer, got string`},
		{"version float", set("version", `3.0`), z + `field "version": want integer, got number 3.0`},
		{"version beyond int", set("version", `4294967299`), z + `field "version": want 32-bit integer, got 4294967299`},
		{"version null", set("version", `null`), z + `field "version": want integer, got null`},

		// Each required field missing.
		{"no version", without("version"), z + `field "version": required field missing`},
		{"no owner", without("owner"), z + `field "owner": required field missing`},
		{"no tokenRequester in version 3", without("tokenRequester"), z + `field "tokenRequester": required field missing`},
		{"no renewers", without("renewers"), z + `field "renewers": required field missing`},
		{"no issueTimestamp", without("issueTimestamp"), z + `field "issueTimestamp": required field missing`},
		{"no maxTimestamp", without("maxTimestamp"), z + `field "maxTimestamp": required field missing`},
		{"no expiryTimestamp", without("expiryTimestamp"), z + `field "expiryTimestamp": required field missing`},
		{"no tokenId", without("tokenId"), z + `field "tokenId": required field missing`},
		{"empty object", `{}`, z + `field "version": required field missing`},
		{"version 1 still needs renewers", `{"version":1,"owner":"User%3Aa","issueTimestamp":1,"maxTimestamp":3,` +
			`"expiryTimestamp":2,"tokenId":"abc"}`, z + `field "renewers": required field missing`},

		// Wrong types.
		{"owner number", set("owner", `5`), z + `field "owner": want string, got number`},
		{"owner null", set("owner", `null`), z + `field "owner": want string, got null`},
		{"tokenRequester object", set("tokenRequester", `{}`), z + `field "tokenRequester": want string, got object`},
		{"renewers string", set("renewers", `"User%3Abob"`), z + `field "renewers": want array of strings, got string`},
		{"renewers null", set("renewers", `null`), z + `field "renewers": want array of strings, got null`},
		{"renewer number", set("renewers", `["User%3Abob",1]`), z + `field "renewers"[1]: want string, got number`},
		{"issueTimestamp string", set("issueTimestamp", `"1"`), z + `field "issueTimestamp": want integer, got string`},
		{"maxTimestamp float", set("maxTimestamp", `1.5`), z + `field "maxTimestamp": want integer, got number 1.5`},
		{"maxTimestamp exponent", set("maxTimestamp", `1e3`), z + `field "maxTimestamp": want integer, got number 1e3`},
		{"expiryTimestamp beyond long", set("expiryTimestamp", `9223372036854775808`),
			z + `field "expiryTimestamp": want 64-bit integer, got 9223372036854775808`},
		{"expiryTimestamp boolean", set("expiryTimestamp", `true`), z + `field "expiryTimestamp": want integer, got boolean`},
		{"tokenId number", set("tokenId", `7`), z + `field "tokenId": want string, got number`},
		{"tokenId null", set("tokenId", `null`), z + `field "tokenId": want string, got null`},

		// Principals: parseKafkaPrincipal needs "<type>:<name>" after
		// desanitizing, and URLDecoder refuses broken escapes.
		{"owner without colon", set("owner", `"alice"`),
			z + `field "owner": expected a string in format principalType:principalName but got "alice"`},
		{"owner empty", set("owner", `""`),
			z + `field "owner": expected a string in format principalType:principalName but got ""`},
		{"tokenRequester without colon", set("tokenRequester", `"User%20alice"`),
			z + `field "tokenRequester": expected a string in format principalType:principalName but got "User alice"`},
		{"renewer without colon", set("renewers", `["User%3Abob","bob"]`),
			z + `field "renewers"[1]: expected a string in format principalType:principalName but got "bob"`},
		{"owner truncated escape", set("owner", `"User%3"`),
			z + `field "owner": desanitize entity name "User%3": invalid URL escape "%3"`},
		{"owner non-hex escape", set("owner", `"User%ZZalice"`),
			z + `field "owner": desanitize entity name "User%ZZalice": invalid URL escape "%ZZ"`},
		{"tokenRequester lone percent", set("tokenRequester", `"User%"`),
			z + `field "tokenRequester": desanitize entity name "User%": invalid URL escape "%"`},
		{"renewer bad escape", set("renewers", `["User%3Ab%G0b"]`),
			z + `field "renewers"[0]: desanitize entity name "User%3Ab%G0b": invalid URL escape "%G0"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeToken([]byte(c.in))
			if err == nil {
				t.Fatalf("decode(%s) = %#v, want error %q", c.in, got, c.want)
			}
			var de *znodes.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *DecodeError", err, err)
			}
			if de.Znode != "/delegation_token/tokens/tok" {
				t.Errorf("error names znode %q", de.Znode)
			}
			if err.Error() != c.want {
				t.Fatalf("decode(%s) error\n got %q\nwant %q", c.in, err.Error(), c.want)
			}
			if errors.Is(err, znodes.ErrNoData) {
				t.Errorf("a payload with bytes is not ErrNoData: %v", err)
			}
		})
	}
}

// TestDelegationTokenNoData: Kafka's fromBytes reads null or empty data as
// no token; the decoder reports ErrNoData so callers can do the same.
func TestDelegationTokenNoData(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"null", nil, "znode /delegation_token/tokens/Xy-_z9: null data"},
		{"empty", []byte{}, "znode /delegation_token/tokens/Xy-_z9: empty data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := znodes.DecodeDelegationToken("Xy-_z9", c.in)
			if !errors.Is(err, znodes.ErrNoData) {
				t.Fatalf("decode(%v) = %v, want ErrNoData", c.in, err)
			}
			if err.Error() != c.want {
				t.Fatalf("error %q, want %q", err, c.want)
			}
		})
	}
}

// TestDelegationTokenErrorNamesTheGivenID: the znode in the error is built
// from the id the caller read, not from the payload's tokenId.
func TestDelegationTokenErrorNamesTheGivenID(t *testing.T) {
	in := tokenJSON(map[string]string{"version": `9`, "tokenId": `"other"`})
	_, err := znodes.DecodeDelegationToken("Zm9vYmFyYmF6cXV4MTIzNA", []byte(in))
	const want = `znode /delegation_token/tokens/Zm9vYmFyYmF6cXV4MTIzNA: field "version": version 9 is not supported (1 to 3 are)`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// TestParseTokenPrincipal follows SecurityUtils.parseKafkaPrincipal:
// str.split(":", 2), so the first ':' splits and either half may be empty,
// but there must be a ':' and the string must not be empty.
func TestParseTokenPrincipal(t *testing.T) {
	cases := []struct {
		in   string
		want znodes.TokenPrincipal
		err  bool
	}{
		{in: "User:alice", want: user("alice")},
		{in: "User:", want: user("")},
		{in: ":x", want: znodes.TokenPrincipal{Type: "", Name: "x"}},
		{in: ":", want: znodes.TokenPrincipal{}},
		{in: "a:b:c", want: znodes.TokenPrincipal{Type: "a", Name: "b:c"}},
		{in: "User:CN=alice smith,O=Acme", want: user("CN=alice smith,O=Acme")},
		{in: "User:é", want: user("é")},
		{in: "", err: true},
		{in: "alice", err: true},
		{in: "User%3Aalice", err: true}, // still sanitized: the caller must desanitize first
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := znodes.ParseTokenPrincipal(c.in)
			if c.err {
				want := `expected a string in format principalType:principalName but got "` + c.in + `"`
				if err == nil || err.Error() != want {
					t.Fatalf("ParseTokenPrincipal(%q) = %#v, %v; want error %q", c.in, got, err, want)
				}
				if got != (znodes.TokenPrincipal{}) {
					t.Fatalf("a refused principal should be zero, got %#v", got)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("ParseTokenPrincipal(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
			}
			// String is the inverse of parsing.
			if s := got.String(); s != c.in {
				t.Fatalf("String() = %q, want %q", s, c.in)
			}
		})
	}
	// A long refused value is clipped in the message, as elsewhere.
	long := strings.Repeat("x", 100)
	_, err := znodes.ParseTokenPrincipal(long)
	if err == nil || strings.Contains(err.Error(), long) || !strings.Contains(err.Error(), "...") {
		t.Fatalf("long value not clipped: %v", err)
	}
}

// TestTokenPrincipalTypeWithColonIsLossy documents a limit Kafka shares:
// the stored form is "<type>:<name>" split at the first ':', so a type
// containing ':' does not survive a round trip (Kafka's types never do).
func TestTokenPrincipalTypeWithColonIsLossy(t *testing.T) {
	tok := znodes.DelegationToken{ID: "x", Owner: znodes.TokenPrincipal{Type: "a:b", Name: "c"}, Requester: user("r")}
	enc, err := tok.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeToken(enc)
	if err != nil {
		t.Fatal(err)
	}
	if want := (znodes.TokenPrincipal{Type: "a", Name: "b:c"}); got.Owner != want {
		t.Fatalf("owner read back as %#v, want %#v", got.Owner, want)
	}
}
