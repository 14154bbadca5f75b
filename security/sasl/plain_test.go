package sasl

import (
	"context"
	"errors"
	"testing"

	"github.com/kzadmin/kzadmin/controller/wire"
)

func TestPlainExchange(t *testing.T) {
	users := map[string]string{"alice": "alice-secret", "bob": "b"}
	for _, tc := range []struct {
		token string
		user  string // "" means failure with msg
		msg   string
	}{
		{token: "\x00alice\x00alice-secret", user: "alice"},
		{token: "alice\x00alice\x00alice-secret", user: "alice"},
		{token: "\x00alice\x00wrong", msg: "Authentication failed: Invalid username or password"},
		{token: "\x00carol\x00alice-secret", msg: "Authentication failed: Invalid username or password"},
		{token: "bob\x00alice\x00alice-secret", msg: "Authentication failed: Client requested an authorization id that is different from username"},
		{token: "\x00\x00x", msg: "Authentication failed: username not specified"},
		{token: "\x00alice\x00", msg: "Authentication failed: password not specified"},
		{token: "alice\x00alice-secret", msg: "Invalid SASL/PLAIN response: expected 3 tokens, got 2"},
		{token: "a\x00b\x00c\x00d", msg: "Invalid SASL/PLAIN response: expected 3 tokens, got 4"},
		{token: "\x00alice\x00\xff", msg: "Invalid SASL/PLAIN response: not UTF-8"},
	} {
		p := newPlain(users)
		resp, done, err := p.Step(context.Background(), []byte(tc.token))
		if tc.user != "" {
			if err != nil || !done || len(resp) != 0 || p.Principal() != (wire.Principal{Type: "User", Name: tc.user}) {
				t.Errorf("%q: %v done=%v principal %v", tc.token, err, done, p.Principal())
			}
			if _, _, err := p.Step(context.Background(), []byte(tc.token)); err == nil {
				t.Errorf("%q: second step accepted", tc.token)
			}
			continue
		}
		var se *wire.SASLError
		if !errors.As(err, &se) || se.Message != tc.msg || done {
			t.Errorf("%q: err %v, want %q", tc.token, err, tc.msg)
		}
	}
}

func TestWireConfigValidation(t *testing.T) {
	lookup := ZKCredentials{}.Lookup
	for _, c := range []Config{
		{},
		{Mechanisms: []string{"PLAIN"}},
		{Mechanisms: []string{"GSSAPI"}, SCRAM: lookup},
		{Mechanisms: []string{"OAUTHBEARER"}, SCRAM: lookup},
		{Mechanisms: []string{"SCRAM-SHA-256"}},
		{Mechanisms: []string{"PLAIN", "PLAIN"}, PlainUsers: map[string]string{}},
	} {
		if _, err := c.WireConfig(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	wc, err := Config{Mechanisms: []string{"SCRAM-SHA-512", "PLAIN"}, PlainUsers: map[string]string{}, SCRAM: lookup}.WireConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"PLAIN", "SCRAM-SHA-512"} {
		if _, err := wc.Start(m); err != nil {
			t.Errorf("start %s: %v", m, err)
		}
	}
	if _, err := wc.Start("NOPE"); err == nil {
		t.Error("unknown mechanism started")
	}
}
