package sasl

import (
	"strings"
	"testing"
)

func TestParsePlainUsers(t *testing.T) {
	jaas := `org.apache.kafka.common.security.plain.PlainLoginModule required
		username="admin"
		password="admin-secret" // the broker's own login
		user_admin="admin-secret"
		user_alice='alice "quoted" secret'
		/* a comment */ user_bob=bare-word.1
		user_esc="a\"b\\c";`
	users, err := ParsePlainUsers(jaas)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"admin": "admin-secret", "alice": `alice "quoted" secret`, "bob": "bare-word.1", "esc": `a"b\c`}
	if len(users) != len(want) {
		t.Fatalf("users %v", users)
	}
	for k, v := range want {
		if users[k] != v {
			t.Errorf("user %s: %q, want %q", k, users[k], v)
		}
	}
}

func TestParseJAASEntries(t *testing.T) {
	got, err := ParseJAAS(`org.apache.kafka.common.security.scram.ScramLoginModule required;
		org.apache.kafka.common.security.plain.PlainLoginModule optional user_x="y";`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Flag != "required" || len(got[0].Options) != 0 || got[1].Options["user_x"] != "y" {
		t.Fatalf("%+v", got)
	}
}

func TestParseJAASErrors(t *testing.T) {
	for _, s := range []string{
		"",
		"   // only a comment",
		"Module required user_a=\"b\"",           // no ';'
		"Module mandatory;",                      // bad flag
		"Module required user_a;",                // no value
		"Module required user_a=\"unterminated;", // open quote
		"Module required =x;",
		"Module /* open comment",
		";",
	} {
		if _, err := ParseJAAS(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	if _, err := ParsePlainUsers("org.apache.kafka.common.security.scram.ScramLoginModule required;"); err == nil ||
		!strings.Contains(err.Error(), "PlainLoginModule") {
		t.Errorf("no PLAIN entry: %v", err)
	}
}
