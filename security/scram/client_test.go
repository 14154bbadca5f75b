package scram

import (
	"context"
	"errors"
	"testing"
)

// TestClientRFC7677 replays RFC 7677's SCRAM-SHA-256 example.
func TestClientRFC7677(t *testing.T) {
	c := NewClient(SHA256, "user", "pencil")
	c.newNonce = func() (string, error) { return "rOprNGfwEbeRWgbNEkqO", nil }
	first, err := c.First()
	if err != nil || string(first) != "n,,n=user,r=rOprNGfwEbeRWgbNEkqO" {
		t.Fatalf("first %q %v", first, err)
	}
	final, err := c.Final([]byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
	if want := "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="; err != nil || string(final) != want {
		t.Fatalf("final %q %v", final, err)
	}
	if err := c.Verify([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); err != nil {
		t.Fatal(err)
	}
	if err := c.Verify([]byte("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")); !errors.Is(err, ErrServerSignature) {
		t.Fatalf("forged server signature: %v", err)
	}
}

// TestClientAgainstServer: our client and server agree for both
// mechanisms, and a wrong password fails at the server.
func TestClientAgainstServer(t *testing.T) {
	ctx := context.Background()
	lookup := users(t, map[string]string{"al=i,ce": "secret"})
	for _, m := range Mechanisms() {
		for _, pw := range []string{"secret", "wrong"} {
			c, s := NewClient(m, "al=i,ce", pw), NewServer(m, lookup)
			first, err := c.First()
			if err != nil {
				t.Fatal(err)
			}
			sf, _, err := s.Step(ctx, first)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := c.Final(sf)
			if err != nil {
				t.Fatal(err)
			}
			fin, done, err := s.Step(ctx, cf)
			if pw == "wrong" {
				if err == nil {
					t.Fatalf("%s: wrong password accepted", m)
				}
				continue
			}
			if err != nil || !done {
				t.Fatalf("%s: %v", m, err)
			}
			if err := c.Verify(fin); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
		}
	}
}

func TestClientRejectsBadServerFirst(t *testing.T) {
	for _, sf := range []string{
		"r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
		"r=NONCEmore,s=!!,i=4096",
		"r=NONCEmore,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=100",
		"r=NONCEmore,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=99999999",
		"e=unknown-user",
		"garbage",
	} {
		c := NewClient(SHA512, "u", "p")
		c.newNonce = func() (string, error) { return "NONCE", nil }
		if _, err := c.First(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Final([]byte(sf)); err == nil {
			t.Errorf("%q accepted", sf)
		}
	}
}
