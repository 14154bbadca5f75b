package tlsconf

import (
	"errors"
	"testing"
)

type mapCase struct {
	rules, dn, want string // want "" means no rule applies
}

func mapCases() []mapCase {
	const dn = "CN=Kafka Server,OU=ServiceUsers,O=Acme,C=US"
	return []mapCase{
		{"", dn, dn},
		{"DEFAULT", dn, dn},
		{"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/", dn, "Kafka Server"},
		{"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L", dn, "kafka server"},
		{"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/U", dn, "KAFKA SERVER"},
		{"RULE:^CN=(.*?),OU=(.*?),O=(.*?),C=(.*?)$/$1@$3/L, DEFAULT", dn, "kafka server@acme"},
		{"RULE:^CN=(.*?),OU=Admins.*$/$1/, DEFAULT", dn, dn},
		{"RULE:^CN=(.*?),OU=Admins.*$/$1/", dn, ""},
		{"RULE:^CN=([^,]*).*$/user-$1-\\$x/", dn, "user-Kafka Server-$x"},
		{"RULE:^CN=([^,]*).*$/$12/", dn, "Kafka Server2"},
		{"RULE:^CN=([^,]*).*$/$2/", dn, "$2"},
		{"RULE:^CN=(.*?),OU=Service.*$/a\\/b $1/", dn, "a/b Kafka Server"},
		{"RULE:Service/x/", dn, ""}, // must match the whole DN
		{"RULE:^.*OU=(\\w+).*$/$1/,\n  RULE:^CN=(.*)$/$1/", "CN=plain", "plain"},
	}
}

func TestMappingRules(t *testing.T) {
	for _, tc := range mapCases() {
		r, err := ParseMappingRules(tc.rules)
		if err != nil {
			t.Errorf("%q: %v", tc.rules, err)
			continue
		}
		got, err := r.Map(tc.dn)
		switch {
		case tc.want == "":
			if !errors.Is(err, ErrNoMatchingRule) {
				t.Errorf("%q on %q: %q, %v; want no match", tc.rules, tc.dn, got, err)
			}
		case err != nil || got != tc.want:
			t.Errorf("%q on %q: %q, %v; want %q", tc.rules, tc.dn, got, err, tc.want)
		}
	}
}

func TestMappingRulesInvalid(t *testing.T) {
	for _, s := range []string{
		"RULE:abc",
		"RULE:abc/def",
		"RULE:(/x/",
		"NOTARULE",
		"DEFAULT DEFAULT",
	} {
		if _, err := ParseMappingRules(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestMappingRulesMatchKafka runs the same cases through Kafka's
// SslPrincipalMapper.
func TestMappingRulesMatchKafka(t *testing.T) {
	args := []string{"map"}
	var cases []mapCase
	for _, tc := range mapCases() {
		if tc.rules == "" {
			continue // Kafka's config default turns "" into DEFAULT first
		}
		args, cases = append(args, tc.rules, tc.dn), append(cases, tc)
	}
	out := javaCheck(t, true, args...)
	if len(out) != len(cases) {
		t.Fatalf("kafka answered %d lines for %d cases: %q", len(out), len(cases), out)
	}
	for i, tc := range cases {
		want := "ERR NoMatchingRule"
		if tc.want != "" {
			want = "OK " + tc.want
		}
		if out[i] != want {
			t.Errorf("%q on %q: kafka %q, this package %q", tc.rules, tc.dn, out[i], want)
		}
	}
}
