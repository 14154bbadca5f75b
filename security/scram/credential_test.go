package scram

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestCredentialStringRoundTrip(t *testing.T) {
	for _, m := range Mechanisms() {
		c, err := NewCredential(m, "alice-secret", 8192)
		if err != nil {
			t.Fatal(err)
		}
		s := c.String()
		if !strings.HasPrefix(s, "salt=") || !strings.HasSuffix(s, ",iterations=8192") {
			t.Fatalf("%s: unexpected layout %q", m, s)
		}
		got, err := ParseCredential(s)
		if err != nil {
			t.Fatalf("%s: parse %q: %v", m, s, err)
		}
		if !bytes.Equal(got.Salt, c.Salt) || !bytes.Equal(got.StoredKey, c.StoredKey) ||
			!bytes.Equal(got.ServerKey, c.ServerKey) || got.Iterations != c.Iterations {
			t.Fatalf("%s: round trip %+v != %+v", m, got, c)
		}
		if len(c.StoredKey) != m.keyLen() || len(c.ServerKey) != m.keyLen() {
			t.Fatalf("%s: key lengths %d/%d", m, len(c.StoredKey), len(c.ServerKey))
		}
	}
}

// Kafka's salt is a base-36 number of up to 130 bits: at most 26 digits.
func TestNewCredentialSaltIsKafkaStyle(t *testing.T) {
	seen := map[string]bool{}
	for range 20 {
		c, err := NewCredential(SHA256, "x", MinIterations)
		if err != nil {
			t.Fatal(err)
		}
		s := string(c.Salt)
		if len(s) == 0 || len(s) > 26 || strings.Trim(s, "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
			t.Fatalf("salt %q is not base 36", s)
		}
		if seen[s] {
			t.Fatalf("salt %q repeated", s)
		}
		seen[s] = true
	}
}

func TestNewCredentialIterationBounds(t *testing.T) {
	for _, n := range []int{0, 4095, 16385} {
		if _, err := NewCredential(SHA512, "p", n); err == nil {
			t.Errorf("iterations %d accepted", n)
		}
	}
	for _, n := range []int{4096, 16384} {
		if _, err := NewCredential(SHA512, "p", n); err != nil {
			t.Errorf("iterations %d: %v", n, err)
		}
	}
}

// The RFC 7677 example: user "user", password "pencil", salt
// W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations. The derived keys are checked
// by the full exchange in TestServerRFC7677; here, that derivation is
// deterministic and matches what the exchange needs.
func TestDeriveCredentialDeterministic(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	a, err := DeriveCredential(SHA256, "pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DeriveCredential(SHA256, "pencil", salt, 4096)
	if a.String() != b.String() {
		t.Fatal("derivation is not deterministic")
	}
	c, _ := DeriveCredential(SHA256, "pencil!", salt, 4096)
	if bytes.Equal(a.StoredKey, c.StoredKey) {
		t.Fatal("different passwords, same key")
	}
	if _, err := DeriveCredential(0, "p", salt, 4096); err == nil {
		t.Fatal("invalid mechanism accepted")
	}
	if _, err := DeriveCredential(SHA256, "p", salt, 0); err == nil {
		t.Fatal("zero iterations accepted")
	}
}

func TestParseCredential(t *testing.T) {
	good := "salt=c2FsdA==,stored_key=AQID,server_key=BAUG,iterations=4096"
	c, err := ParseCredential(good)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Salt) != "salt" || !bytes.Equal(c.StoredKey, []byte{1, 2, 3}) ||
		!bytes.Equal(c.ServerKey, []byte{4, 5, 6}) || c.Iterations != 4096 {
		t.Fatalf("parsed %+v", c)
	}
	ok := []string{
		// Order does not matter; a trailing comma is dropped by Java's
		// split; a repeated key counts once and the last one wins.
		"iterations=4096,server_key=BAUG,stored_key=AQID,salt=c2FsdA==",
		good + ",",
		"salt=eA==," + good,
	}
	for _, s := range ok {
		got, err := ParseCredential(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if string(got.Salt) != "salt" {
			t.Errorf("%q: salt %q", s, got.Salt)
		}
	}
	bad := []string{
		"",
		"salt=c2FsdA==,stored_key=AQID,server_key=BAUG",
		good + ",extra=1",
		"salt=c2FsdA==,stored_key=AQID,server_key=BAUG,iterations=x",
		"salt=!!,stored_key=AQID,server_key=BAUG,iterations=4096",
		"salt=c2FsdA==,,stored_key=AQID,server_key=BAUG,iterations=4096",
		"=x,salt=c2FsdA==,stored_key=AQID,server_key=BAUG,iterations=4096",
	}
	for _, s := range bad {
		_, err := ParseCredential(s)
		if !errors.Is(err, ErrInvalidCredential) {
			t.Errorf("%q: err %v, want ErrInvalidCredential", s, err)
			continue
		}
		if strings.Contains(err.Error(), "AQID") {
			t.Errorf("%q: error quotes key material: %v", s, err)
		}
	}
}

func TestParsePasswordSpec(t *testing.T) {
	cases := []struct {
		spec       string
		iterations int
		password   string
		wantErr    string
	}{
		{spec: "password=alice-secret", iterations: 4096, password: "alice-secret"},
		{spec: "iterations=8192,password=alice-secret", iterations: 8192, password: "alice-secret"},
		{spec: "password=a,b=c", iterations: 4096, password: "a,b=c"},
		{spec: "password=", iterations: 4096, password: ""},
		{spec: "iterations=4095,password=x", wantErr: "less than the minimum 4096"},
		{spec: "iterations=,password=x", wantErr: "iterations"},
		{spec: "iterations=-1,password=x", wantErr: "invalid credential property"},
		{spec: "iterations=8192", wantErr: "invalid credential property"},
		{spec: "secret", wantErr: "invalid credential property"},
		{spec: "iterations=99999,password=x", wantErr: "outside"},
	}
	for _, tc := range cases {
		c, err := ParsePasswordSpec(SHA256, tc.spec)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.spec, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		want, _ := DeriveCredential(SHA256, tc.password, c.Salt, tc.iterations)
		if c.String() != want.String() {
			t.Errorf("%q: credential is not for password %q and %d iterations", tc.spec, tc.password, tc.iterations)
		}
	}
}

func TestFromUserConfig(t *testing.T) {
	c256, _ := NewCredential(SHA256, "a", 4096)
	c512, _ := NewCredential(SHA512, "b", 4096)
	got, err := FromUserConfig(map[string]string{
		"SCRAM-SHA-256": c256.String(), "SCRAM-SHA-512": c512.String(), "producer_byte_rate": "1024",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[SHA256].String() != c256.String() || got[SHA512].String() != c512.String() {
		t.Fatalf("got %v", got)
	}
	if _, err := FromUserConfig(map[string]string{"SCRAM-SHA-512": "junk"}); err == nil ||
		!strings.Contains(err.Error(), "SCRAM-SHA-512") {
		t.Fatalf("bad value: %v", err)
	}
	if got, err := FromUserConfig(nil); err != nil || len(got) != 0 {
		t.Fatalf("empty config: %v %v", got, err)
	}
}

func TestMechanismByName(t *testing.T) {
	for _, m := range Mechanisms() {
		got, ok := MechanismByName(m.Name())
		if !ok || got != m {
			t.Errorf("%s: %v %v", m, got, ok)
		}
	}
	for _, n := range []string{"scram-sha-256", "SCRAM-SHA-1", "PLAIN", ""} {
		if _, ok := MechanismByName(n); ok {
			t.Errorf("%q accepted", n)
		}
	}
}
