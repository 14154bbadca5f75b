package znodes

import (
	"fmt"
	"strings"
)

// DelegationTokenVersion is the version Kafka 3.9 writes in
// /delegation_token/tokens/<id>; versions 1 to 3 are read.
const DelegationTokenVersion = 3

// TokenPrincipal is a principal as a delegation token stores it: a type
// ("User") and a name, kept as "<type>:<name>", sanitized.
type TokenPrincipal struct {
	Type string
	Name string
}

func (p TokenPrincipal) String() string { return p.Type + ":" + p.Name }

// ParseTokenPrincipal parses "<type>:<name>" as Kafka's
// SecurityUtils.parseKafkaPrincipal does: split at the first ':', both
// halves present (either may be empty).
func ParseTokenPrincipal(s string) (TokenPrincipal, error) {
	typ, name, ok := strings.Cut(s, ":")
	if s == "" || !ok {
		return TokenPrincipal{}, fmt.Errorf("expected a string in format principalType:principalName but got %q", clip(s))
	}
	return TokenPrincipal{Type: typ, Name: name}, nil
}

// DelegationToken is the payload of /delegation_token/tokens/<tokenId>:
// {"version":3,"owner":"User%3Aalice","tokenRequester":"User%3Aalice",
// "renewers":["User%3Abob"],"issueTimestamp":1,"maxTimestamp":2,
// "expiryTimestamp":3,"tokenId":"..."}. Principals are sanitized as entity
// names are (SanitizeEntityName); timestamps are epoch milliseconds. The
// token's HMAC is not stored: every holder of the shared secret derives it
// from the id.
type DelegationToken struct {
	// Version is what was read; Encode always writes DelegationTokenVersion.
	Version int32
	ID      string
	Owner   TokenPrincipal
	// Requester is who asked for the token; before version 3 it is not
	// stored and reads as the owner.
	Requester TokenPrincipal
	Renewers  []TokenPrincipal
	IssueMs   int64
	MaxMs     int64
	ExpiryMs  int64
}

// Encode writes the token as Kafka 3.9 does, version 3.
func (t DelegationToken) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.intField("version", DelegationTokenVersion)
	w.strField("owner", SanitizeEntityName(t.Owner.String()))
	w.strField("tokenRequester", SanitizeEntityName(t.Requester.String()))
	w.key("renewers")
	w.beginArray()
	for _, r := range t.Renewers {
		w.str(SanitizeEntityName(r.String()))
	}
	w.endArray()
	w.intField("issueTimestamp", t.IssueMs)
	w.intField("maxTimestamp", t.MaxMs)
	w.intField("expiryTimestamp", t.ExpiryMs)
	w.strField("tokenId", t.ID)
	w.endObject()
	return w.bytes(), nil
}

// DecodeDelegationToken decodes /delegation_token/tokens/<id> as Kafka's
// DelegationTokenManagerZk.fromBytes does: version 1 to 3, every field
// required (tokenRequester from version 3), principals desanitized and
// parsed. Empty or null data is ErrNoData (Kafka reads it as no token).
func DecodeDelegationToken(id string, data []byte) (DelegationToken, error) {
	d := decoder{znode: DelegationTokenInfoPath(id)}
	var t DelegationToken
	f, err := d.parse(data)
	if err != nil {
		return t, err
	}
	if t.Version, err = d.requiredInt32(f, "", "version"); err != nil {
		return t, err
	}
	if t.Version < 1 || t.Version > DelegationTokenVersion {
		return t, d.fail(sub("", "version"), "version %d is not supported (1 to %d are)", t.Version, DelegationTokenVersion)
	}
	if t.Owner, err = d.tokenPrincipal(f, "owner"); err != nil {
		return t, err
	}
	t.Requester = t.Owner
	if t.Version >= 3 {
		if t.Requester, err = d.tokenPrincipal(f, "tokenRequester"); err != nil {
			return t, err
		}
	}
	raw, err := d.required(f, "", "renewers")
	if err != nil {
		return t, err
	}
	renewers, err := d.strings(sub("", "renewers"), raw)
	if err != nil {
		return t, err
	}
	for i, s := range renewers {
		p, err := desanitizedPrincipal(s)
		if err != nil {
			return t, d.fail(idx(sub("", "renewers"), i), "%v", err)
		}
		t.Renewers = append(t.Renewers, p)
	}
	for _, ts := range []struct {
		key string
		to  *int64
	}{{"issueTimestamp", &t.IssueMs}, {"expiryTimestamp", &t.ExpiryMs}, {"maxTimestamp", &t.MaxMs}} {
		raw, err := d.required(f, "", ts.key)
		if err != nil {
			return t, err
		}
		if *ts.to, err = d.int64(sub("", ts.key), raw); err != nil {
			return t, err
		}
	}
	if t.ID, err = d.requiredString(f, "", "tokenId"); err != nil {
		return t, err
	}
	return t, nil
}

func (d decoder) tokenPrincipal(f fields, key string) (TokenPrincipal, error) {
	s, err := d.requiredString(f, "", key)
	if err != nil {
		return TokenPrincipal{}, err
	}
	p, err := desanitizedPrincipal(s)
	if err != nil {
		return TokenPrincipal{}, d.fail(sub("", key), "%v", err)
	}
	return p, nil
}

func desanitizedPrincipal(s string) (TokenPrincipal, error) {
	plain, err := DesanitizeEntityName(s)
	if err != nil {
		return TokenPrincipal{}, err
	}
	return ParseTokenPrincipal(plain)
}
