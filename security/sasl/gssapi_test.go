package sasl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/types"
)

const testRealm = "EXAMPLE.COM"

// fakeTickets issues tickets for a service whose keys are in kt, as a
// KDC would, without one.
type fakeTickets struct{ kt *keytab.Keytab }

func (f fakeTickets) ServiceTicket(spn string) (messages.Ticket, types.EncryptionKey, error) {
	now := time.Now().UTC()
	return messages.NewTicket(types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, "kafka/kzadmind"), testRealm,
		types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, spn), testRealm, types.NewKrbFlags(), f.kt,
		etypeID.AES256_CTS_HMAC_SHA1_96, 1, now, now, now.Add(time.Hour), now.Add(time.Hour))
}

func (fakeTickets) Client() (string, types.PrincipalName) {
	return testRealm, types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, "kafka/kzadmind")
}

// testAcceptor is the server side of the exchange, as Java's GSSAPI
// SaslServer runs it, with knobs to misbehave.
type testAcceptor struct {
	t  *testing.T
	kt *keytab.Keytab
	// useSubkey sends an acceptor subkey in the AP-REP and wraps with it.
	useSubkey bool
	// offer is the security-layer byte offered (0: no security layer only).
	offer byte

	sessionKey, key types.EncryptionKey
	auth            types.Authenticator
}

func newAcceptor(t *testing.T) (*testAcceptor, fakeTickets) {
	kt := keytab.New()
	if err := kt.AddEntry("zookeeper/zk1", testRealm, "service-secret", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	return &testAcceptor{t: t, kt: kt, offer: noSecurityLayer}, fakeTickets{kt: kt}
}

// accept checks the AP-REQ and returns the AP-REP token; edit may change
// the AP-REP's encrypted part.
func (a *testAcceptor) accept(token []byte, edit func(*messages.EncAPRepPart)) []byte {
	a.t.Helper()
	id, body, err := parseGSSMechToken(token)
	if err != nil || !bytes.Equal(id, tokAPReq) {
		a.t.Fatalf("not an AP-REQ token: %x, %v", id, err)
	}
	var req messages.APReq
	if err := req.Unmarshal(body); err != nil {
		a.t.Fatal(err)
	}
	if err := req.Ticket.DecryptEncPart(a.kt, nil); err != nil {
		a.t.Fatal(err)
	}
	a.sessionKey = req.Ticket.DecryptedEncPart.Key
	if err := req.DecryptAuthenticator(a.sessionKey); err != nil {
		a.t.Fatal(err)
	}
	a.auth = req.Authenticator
	if !types.IsFlagSet(&req.APOptions, 2) {
		a.t.Fatal("mutual authentication not required by the AP-REQ")
	}
	if cs := a.auth.Cksum.Checksum; len(cs) != 24 || cs[20]&byte(gssFlags) != byte(gssFlags) {
		a.t.Fatalf("authenticator checksum %x", cs)
	}
	part := messages.EncAPRepPart{CTime: a.auth.CTime, Cusec: a.auth.Cusec, SequenceNumber: 7}
	a.key = a.sessionKey
	if a.useSubkey {
		part.Subkey = types.EncryptionKey{KeyType: a.sessionKey.KeyType, KeyValue: bytes.Repeat([]byte{0x5a}, len(a.sessionKey.KeyValue))}
		a.key = part.Subkey
	}
	if edit != nil {
		edit(&part)
	}
	return a.apRep(part, a.sessionKey)
}

// apRep encrypts part under key and frames it as the AP-REP token.
func (a *testAcceptor) apRep(part messages.EncAPRepPart, key types.EncryptionKey) []byte {
	a.t.Helper()
	inner, err := asn1.Marshal(part)
	if err != nil {
		a.t.Fatal(err)
	}
	ed, err := crypto.GetEncryptedData(asn1tools.AddASNAppTag(inner, 27), key, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		a.t.Fatal(err)
	}
	rep, err := asn1.Marshal(messages.APRep{PVNO: 5, MsgType: 15, EncPart: ed})
	if err != nil {
		a.t.Fatal(err)
	}
	token, err := gssMechToken(tokAPRep, asn1tools.AddASNAppTag(rep, 15))
	if err != nil {
		a.t.Fatal(err)
	}
	return token
}

// layers is the wrapped security-layer offer.
func (a *testAcceptor) layers(flags byte, key types.EncryptionKey) []byte {
	a.t.Helper()
	if a.useSubkey {
		flags |= wrapAcceptorSubkey
	}
	wt := gssapi.WrapToken{Flags: wrapSentByAcceptor | flags, EC: 12, SndSeqNum: 99, Payload: []byte{a.offer, 0, 0x10, 0}}
	if err := wt.SetCheckSum(key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		a.t.Fatal(err)
	}
	b, err := wt.Marshal()
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

// final checks the client's choice: no layer, wrapped with the context's
// key, its sequence number the authenticator's.
func (a *testAcceptor) final(token []byte) {
	a.t.Helper()
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(token, false); err != nil {
		a.t.Fatal(err)
	}
	if ok, err := wt.Verify(a.key, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
		a.t.Fatalf("the client's reply does not verify: %v", err)
	}
	if !bytes.Equal(wt.Payload, []byte{noSecurityLayer, 0, 0, 0}) || wt.SndSeqNum != uint64(a.auth.SeqNumber) ||
		(wt.Flags&wrapAcceptorSubkey != 0) != a.useSubkey {
		a.t.Fatalf("reply %+v", wt)
	}
}

// TestGSSAPIExchange: the whole exchange against an acceptor that uses
// the ticket's session key, and one that sends and uses its own subkey.
func TestGSSAPIExchange(t *testing.T) {
	for _, subkey := range []bool{false, true} {
		a, tickets := newAcceptor(t)
		a.useSubkey = subkey
		c := &GSSAPIClient{Tickets: tickets, Service: "zookeeper/zk1"}
		first, err := c.Start()
		if err != nil {
			t.Fatal(err)
		}
		second, done, err := c.Next(a.accept(first, nil))
		if err != nil || done || len(second) != 0 {
			t.Fatalf("subkey %v: after the AP-REP: %x, %v, %v", subkey, second, done, err)
		}
		third, done, err := c.Next(a.layers(0, a.key))
		if err != nil || !done {
			t.Fatalf("subkey %v: after the offer: %v, %v", subkey, done, err)
		}
		a.final(third)
		if _, _, err := c.Next(nil); err == nil {
			t.Fatal("a token after the end was taken")
		}
	}
}

// TestGSSAPIRefusals: a server that cannot prove it is the service, or
// whose answers are not what the mechanism allows, is refused with the
// reason.
func TestGSSAPIRefusals(t *testing.T) {
	wrongKey := types.EncryptionKey{KeyType: etypeID.AES256_CTS_HMAC_SHA1_96, KeyValue: make([]byte, 32)}
	krbErr := func() []byte {
		e := messages.NewKRBError(types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, "zookeeper/zk1"), testRealm, 41, "integrity check failed")
		b, err := e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		tok, err := gssMechToken(tokKRBError, b)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for name, tc := range map[string]struct {
		apRep  func(a *testAcceptor, first []byte) []byte
		offer  func(a *testAcceptor) []byte // nil: the AP-REP is refused
		expect string
	}{
		"no AP-REP":   {apRep: func(*testAcceptor, []byte) []byte { return nil }, expect: "without an AP-REP"},
		"KRB-ERROR":   {apRep: func(*testAcceptor, []byte) []byte { return krbErr() }, expect: "refused the ticket"},
		"not GSS-API": {apRep: func(*testAcceptor, []byte) []byte { return []byte("hello") }, expect: "not a GSS-API token"},
		"other key": {apRep: func(a *testAcceptor, first []byte) []byte {
			a.accept(first, nil)
			return a.apRep(messages.EncAPRepPart{CTime: a.auth.CTime, Cusec: a.auth.Cusec}, wrongKey)
		}, expect: "does not open"},
		"other time": {apRep: func(a *testAcceptor, first []byte) []byte {
			return a.accept(first, func(p *messages.EncAPRepPart) { p.Cusec++ })
		}, expect: "does not echo"},
		"forged offer": {offer: func(a *testAcceptor) []byte { return a.layers(0, wrongKey) }, expect: "fails its checksum"},
		"sealed":       {offer: func(a *testAcceptor) []byte { return a.layers(wrapSealed, a.key) }, expect: "sealed"},
		"layer needed": {offer: func(a *testAcceptor) []byte { a.offer = 0x04; return a.layers(0, a.key) }, expect: "requires a security layer"},
		"subkey unsent": {offer: func(a *testAcceptor) []byte {
			a.useSubkey = true
			return a.layers(0, a.key)
		}, expect: "acceptor subkey its AP-REP did not carry"},
		"short": {offer: func(*testAcceptor) []byte { return []byte{5, 4, 1} }, expect: "has 3 bytes"},
	} {
		a, tickets := newAcceptor(t)
		c := &GSSAPIClient{Tickets: tickets, Service: "zookeeper/zk1"}
		first, err := c.Start()
		if err != nil {
			t.Fatal(err)
		}
		rep := a.accept(first, nil)
		if tc.apRep != nil {
			rep = tc.apRep(a, first)
		}
		_, _, err = c.Next(rep)
		if tc.offer != nil {
			if err != nil {
				t.Fatalf("%s: AP-REP: %v", name, err)
			}
			_, _, err = c.Next(tc.offer(a))
		}
		if err == nil || !strings.Contains(err.Error(), tc.expect) {
			t.Errorf("%s: %v, want %q", name, err, tc.expect)
		}
	}
}

// FuzzGSSAPIServerTokens: whatever a server answers, to the AP-REQ or
// (afterAPRep) once its AP-REP was good, the client returns an error or a
// token, and never panics.
func FuzzGSSAPIServerTokens(f *testing.F) {
	f.Add(false, []byte{})
	f.Add(false, []byte{0x60, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x02, 0x00})
	f.Add(true, []byte{5, 4, 1, 0xff, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 99, 1, 0, 0x10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(true, []byte{5, 4, 1, 0xff, 0, 12, 0, 3, 0, 0, 0, 0, 0, 0, 0, 99, 1, 0, 0x10, 0})
	f.Fuzz(func(t *testing.T, afterAPRep bool, token []byte) {
		a, tickets := newAcceptor(t)
		c := &GSSAPIClient{Tickets: tickets, Service: "zookeeper/zk1"}
		first, err := c.Start()
		if err != nil {
			t.Fatal(err)
		}
		if afterAPRep {
			if _, _, err := c.Next(a.accept(first, nil)); err != nil {
				t.Fatal(err)
			}
		}
		_, _, _ = c.Next(token)
	})
}

// TestGSSAPIServer: this package's client against its acceptor, with and
// without mutual authentication; the principal is the short name.
func TestGSSAPIServer(t *testing.T) {
	_, tickets := newAcceptor(t)
	acc := &GSSAPIAcceptor{settings: service.NewSettings(tickets.kt, service.MaxClockSkew(maxClockSkew), service.DecodePAC(false)),
		defaultRealm: testRealm}
	ctx := context.Background()
	c := &GSSAPIClient{Tickets: tickets, Service: "zookeeper/zk1"}
	srv := acc.Start()
	token, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; ; round++ {
		if round > 3 {
			t.Fatal("no end")
		}
		answer, done, err := srv.Step(ctx, token)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if done {
			break
		}
		var clientDone bool
		if token, clientDone, err = c.Next(answer); err != nil {
			t.Fatalf("client, round %d: %v", round, err)
		}
		if clientDone {
			if _, done, err := srv.Step(ctx, token); err != nil || !done {
				t.Fatalf("last token: %v, %v", done, err)
			}
			break
		}
	}
	if p := srv.Principal(); p.String() != "User:kafka" {
		t.Fatalf("principal %v", p)
	}
	// A fresh AP-REQ is taken, the same one again is a replay.
	again := mustStart(t, tickets)
	if _, _, err := acc.Start().Step(ctx, again); err != nil {
		t.Fatal(err)
	}
	if _, _, err := acc.Start().Step(ctx, again); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("replay: %v", err)
	}
	// Garbage is refused with Kafka's message.
	if _, _, err := acc.Start().Step(ctx, []byte("nope")); err == nil || !strings.Contains(err.Error(), "invalid credentials with SASL mechanism GSSAPI") {
		t.Fatalf("garbage: %v", err)
	}
	// Another realm's principal has no DEFAULT mapping.
	other := &GSSAPIAcceptor{settings: acc.settings, defaultRealm: "OTHER.REALM"}
	if _, _, err := other.Start().Step(ctx, mustStart(t, tickets)); err == nil || !strings.Contains(err.Error(), "no rule maps") {
		t.Fatalf("foreign realm: %v", err)
	}
}

func mustStart(t *testing.T, tickets ServiceTickets) []byte {
	t.Helper()
	tok, err := (&GSSAPIClient{Tickets: tickets, Service: "zookeeper/zk1"}).Start()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestGSSAPIServerWithoutMutual: a client that does not ask for mutual
// authentication (Java's Kafka clients) gets the offer at once, numbered
// with its own first sequence number, as Java's client requires.
func TestGSSAPIServerWithoutMutual(t *testing.T) {
	_, tickets := newAcceptor(t)
	acc := &GSSAPIAcceptor{settings: service.NewSettings(tickets.kt, service.MaxClockSkew(maxClockSkew), service.DecodePAC(false)),
		defaultRealm: testRealm}
	tkt, key, err := tickets.ServiceTicket("zookeeper/zk1")
	if err != nil {
		t.Fatal(err)
	}
	realm, name := tickets.Client()
	auth, err := types.NewAuthenticator(realm, name)
	if err != nil {
		t.Fatal(err)
	}
	auth.Cksum = types.Checksum{CksumType: 0x8003, Checksum: gssChecksum(gssapi.ContextFlagInteg)}
	req, err := messages.NewAPReq(tkt, key, auth)
	if err != nil {
		t.Fatal(err)
	}
	body, err := req.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	token, err := gssMechToken(tokAPReq, body)
	if err != nil {
		t.Fatal(err)
	}
	srv := acc.Start()
	offer, done, err := srv.Step(context.Background(), token)
	if err != nil || done {
		t.Fatalf("AP-REQ: %v, %v", done, err)
	}
	wt, err := readWrapToken(offer)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyWrapToken(wt, key); err != nil {
		t.Fatal(err)
	}
	if wt.SndSeqNum != uint64(auth.SeqNumber) || wt.Payload[0] != noSecurityLayer {
		t.Fatalf("offer %+v, want sequence number %d", wt, auth.SeqNumber)
	}
	reply := &gssapi.WrapToken{SndSeqNum: uint64(auth.SeqNumber), EC: 12, Payload: []byte{noSecurityLayer, 0, 0, 0}}
	if err := reply.SetCheckSum(key, keyusage.GSSAPI_INITIATOR_SEAL); err != nil {
		t.Fatal(err)
	}
	b, err := reply.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, done, err := srv.Step(context.Background(), b); err != nil || !done {
		t.Fatalf("reply: %v, %v", done, err)
	}
}

// FuzzGSSAPIAcceptor: whatever a client sends first, or (afterAPReq) as
// its last token once its AP-REQ was good, the acceptor answers or
// refuses, and never panics.
func FuzzGSSAPIAcceptor(f *testing.F) {
	f.Add(false, []byte{})
	f.Add(false, []byte{0x60, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x01, 0x00})
	f.Add(true, []byte{5, 4, 0, 0xff, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(true, []byte{})
	f.Fuzz(func(t *testing.T, afterAPReq bool, token []byte) {
		_, tickets := newAcceptor(t)
		acc := &GSSAPIAcceptor{settings: service.NewSettings(tickets.kt, service.MaxClockSkew(maxClockSkew), service.DecodePAC(false)),
			defaultRealm: testRealm}
		srv := acc.Start()
		ctx := context.Background()
		if afterAPReq {
			c := &GSSAPIClient{Tickets: tickets, Service: "zookeeper/zk1"}
			first, err := c.Start()
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := srv.Step(ctx, first)
			if err != nil {
				t.Fatal(err)
			}
			empty, _, err := c.Next(rep)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := srv.Step(ctx, empty); err != nil {
				t.Fatal(err)
			}
		}
		_, _, _ = srv.Step(ctx, token)
	})
}

// TestGSSAPIAcceptorTakesItsPrincipalOnly: with a keytab that holds two
// services' keys, the acceptor made for one refuses tickets for the other.
func TestGSSAPIAcceptorTakesItsPrincipalOnly(t *testing.T) {
	dir := t.TempDir()
	kt := keytab.New()
	for _, p := range []string{"zookeeper/zk1", "kafka/broker1"} {
		if err := kt.AddEntry(p, testRealm, p+"-secret", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
			t.Fatal(err)
		}
	}
	b, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ktPath, confPath := filepath.Join(dir, "two.keytab"), filepath.Join(dir, "krb5.conf")
	if err := os.WriteFile(ktPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(confPath, []byte("[libdefaults]\n  default_realm = "+testRealm+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	acc, err := NewGSSAPIAcceptor(KerberosOptions{Krb5Conf: confPath, Keytab: ktPath, Principal: "kafka/broker1"})
	if err != nil {
		t.Fatal(err)
	}
	tickets := fakeTickets{kt: kt}
	for _, tc := range []struct {
		service string
		ok      bool
	}{{"kafka/broker1", true}, {"zookeeper/zk1", false}} {
		tok, err := (&GSSAPIClient{Tickets: tickets, Service: tc.service}).Start()
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = acc.Start().Step(context.Background(), tok)
		if (err == nil) != tc.ok {
			t.Errorf("a ticket for %s: %v, want accepted %v", tc.service, err, tc.ok)
		}
	}
	if _, err := NewGSSAPIAcceptor(KerberosOptions{Krb5Conf: confPath, Keytab: ktPath, Principal: "kafka/other"}); err == nil ||
		!strings.Contains(err.Error(), "has no key for kafka/other@"+testRealm) {
		t.Errorf("a principal the keytab lacks: %v", err)
	}
}
