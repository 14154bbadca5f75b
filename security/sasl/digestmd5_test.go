package sasl

import (
	"strings"
	"testing"
)

// rfcExample is the exchange in RFC 2831 section 4 (IMAP): its client
// nonce pinned, the client's response and the server's rspauth are the
// RFC's.
func rfcClient() *DigestMD5Client {
	return &DigestMD5Client{
		Username: "chris", Password: "secret", Protocol: "imap", ServerName: "elwood.innosoft.com",
		CNonce: func() (string, error) { return "OA6MHXh6VqTrRk", nil },
	}
}

const rfcChallenge = `realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",qop="auth",algorithm=md5-sess,charset=utf-8`

func TestDigestMD5RFCExample(t *testing.T) {
	c := rfcClient()
	first, err := c.Start()
	if err != nil || len(first) != 0 {
		t.Fatalf("Start = %q, %v; want an empty token", first, err)
	}
	resp, done, err := c.Next([]byte(rfcChallenge))
	if err != nil || done {
		t.Fatalf("Next(challenge) = %v, done %v", err, done)
	}
	want := `charset=utf-8,username="chris",realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",nc=00000001,` +
		`cnonce="OA6MHXh6VqTrRk",digest-uri="imap/elwood.innosoft.com",response=d388dad90d4bbd760a152321f2143af7,qop=auth`
	if string(resp) != want {
		t.Fatalf("response\n got %s\nwant %s", resp, want)
	}
	last, done, err := c.Next([]byte("rspauth=ea40f60335c427b5527b84dbabcdfffd"))
	if err != nil || !done || last != nil {
		t.Fatalf("Next(rspauth) = %q, done %v, %v; want done with nothing to send", last, done, err)
	}
	if _, _, err := c.Next(nil); err == nil {
		t.Fatal("a token after the exchange ended was accepted")
	}
}

func TestDigestMD5Refusals(t *testing.T) {
	for _, tc := range []struct {
		name, challenge, rspauth, want string
	}{
		{name: "empty challenge", challenge: "", want: "no challenge"},
		{name: "no nonce", challenge: `realm="r",qop="auth",algorithm=md5-sess`, want: "no nonce"},
		{name: "not md5-sess", challenge: `nonce="n",algorithm=md5`, want: "md5-sess"},
		{name: "integrity only", challenge: `nonce="n",qop="auth-int,auth-conf",algorithm=md5-sess`, want: "not auth"},
		{name: "unterminated", challenge: `nonce="n,algorithm=md5-sess`, want: "unterminated"},
		{name: "no value", challenge: `nonce`, want: "without a value"},
		{name: "too long", challenge: `nonce="` + strings.Repeat("n", 5000) + `",algorithm=md5-sess`, want: "too long"},
		{name: "wrong rspauth", challenge: rfcChallenge, rspauth: "rspauth=00000000000000000000000000000000", want: "does not know the password"},
		{name: "no rspauth", challenge: rfcChallenge, rspauth: `nonce="x"`, want: "no rspauth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rfcClient()
			if _, err := c.Start(); err != nil {
				t.Fatal(err)
			}
			_, _, err := c.Next([]byte(tc.challenge))
			if tc.rspauth != "" {
				if err != nil {
					t.Fatal(err)
				}
				_, _, err = c.Next([]byte(tc.rspauth))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// TestDigestMD5Quoting: a user name with a quote and a backslash is sent
// escaped; without charset=utf-8 a Latin-1 name is hashed as ISO 8859-1,
// and the realm directive is left out when the server named none.
func TestDigestMD5Quoting(t *testing.T) {
	c := &DigestMD5Client{Username: `a"b\c`, Password: "pw", Protocol: "zookeeper", ServerName: "zk-sasl-md5",
		CNonce: func() (string, error) { return "cn", nil }}
	if _, err := c.Start(); err != nil {
		t.Fatal(err)
	}
	resp, _, err := c.Next([]byte(`nonce="n",algorithm=md5-sess`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp), `username="a\"b\\c",nonce="n"`) || strings.Contains(string(resp), "charset") ||
		!strings.Contains(string(resp), `digest-uri="zookeeper/zk-sasl-md5"`) {
		t.Fatalf("response %s", resp)
	}
	latin := &DigestMD5Client{Username: "jürgen", Password: "pw", Protocol: "p", ServerName: "s",
		CNonce: func() (string, error) { return "cn", nil }}
	utf := *latin
	latin.Start()
	utf.Start()
	r1, _, _ := latin.Next([]byte(`nonce="n",algorithm=md5-sess`))
	r2, _, _ := utf.Next([]byte(`nonce="n",algorithm=md5-sess,charset=utf-8`))
	if digestResponse(t, r1) == digestResponse(t, r2) {
		t.Fatal("a Latin-1 user name hashed alike with and without charset=utf-8")
	}
}

func digestResponse(t *testing.T, token []byte) string {
	t.Helper()
	d, err := parseDigestDirectives(string(token))
	if err != nil {
		t.Fatal(err)
	}
	return d.first("response")
}

func TestParseJAASFile(t *testing.T) {
	got, err := ParseJAASFile(`
// The brokers' file.
KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required
  username="admin" password="a{b}";
};
Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  username="kafka"
  password='kafka-secret';
};`, "jaas.conf")
	if err != nil {
		t.Fatal(err)
	}
	c := got["Client"]
	if len(got) != 2 || len(c) != 1 || c[0].Module != "org.apache.zookeeper.server.auth.DigestLoginModule" ||
		c[0].Options["username"] != "kafka" || c[0].Options["password"] != "kafka-secret" ||
		got["KafkaServer"][0].Options["password"] != "a{b}" {
		t.Fatalf("parsed %+v", got)
	}
	for _, bad := range []string{
		"",
		"Client { };",
		"Client { m required; }",
		"Client m required; };",
		"Client { m required; }; Client { m required; };",
		"Client { m maybe; };",
		`Client { m required user="x; };`,
	} {
		if _, err := ParseJAASFile(bad, "jaas.conf"); err == nil || !strings.HasPrefix(err.Error(), "jaas.conf: ") {
			t.Errorf("ParseJAASFile(%q) = %v, want an error naming the file", bad, err)
		}
	}
}
