package sasl

import "testing"

// FuzzParseJAAS: sasl.jaas.config comes from operators' files (kzadmind's
// configuration, the CLI's --command-config); no input may panic, and
// what parses names a module and a flag for every entry.
func FuzzParseJAAS(f *testing.F) {
	for _, seed := range []string{
		`org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="a\"b";`,
		`org.apache.kafka.common.security.plain.PlainLoginModule required user_admin='x' user_bob=y;`,
		`a required; b optional k=v;`,
		`x required username="u" password="p" tokenauth=true`,
		`"unterminated`, `;;`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := ParseJAAS(s)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Module == "" || e.Flag == "" {
				t.Fatalf("%q parsed into an entry without module or flag: %+v", s, e)
			}
		}
		if len(entries) > 0 {
			_, _ = ClientCredentialsFromJAAS(MechanismPlain, s)
		}
	})
}

// FuzzParseJAASFile: the JAAS file kzadmin.zookeeper.sasl.jaas.file names
// is the operators' (the brokers' own); no input may panic, and what
// parses has sections with at least one well-formed entry each.
func FuzzParseJAASFile(f *testing.F) {
	for _, seed := range []string{
		"Client {\n org.apache.zookeeper.server.auth.DigestLoginModule required username=\"kafka\" password=\"s\";\n};",
		"KafkaServer { a required k=v; }; Client { b optional; };",
		"A { }; ", "A { x required; }", "{ x required; };", "A {{ x required; }};", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sections, err := ParseJAASFile(s, "jaas.conf")
		if err != nil {
			return
		}
		for name, entries := range sections {
			if name == "" || len(entries) == 0 {
				t.Fatalf("%q parsed into section %q with %d entries", s, name, len(entries))
			}
			for _, e := range entries {
				if e.Module == "" || e.Flag == "" {
					t.Fatalf("%q parsed into an entry without module or flag: %+v", s, e)
				}
			}
		}
	})
}

// FuzzDigestMD5 feeds a ZooKeeper server's two tokens to the DIGEST-MD5
// client: no input may panic, and a made-up rspauth is never accepted.
func FuzzDigestMD5(f *testing.F) {
	f.Add([]byte(`realm="zk-sasl-md5",nonce="abc",qop="auth",charset=utf-8,algorithm=md5-sess`), []byte("rspauth=0123"))
	f.Add([]byte(`nonce="a\"b",algorithm=md5-sess,qop="auth,auth-int"`), []byte(`rspauth="x"`))
	f.Add([]byte(`nonce=,algorithm`), []byte(``))
	f.Fuzz(func(t *testing.T, challenge, rspauth []byte) {
		c := &DigestMD5Client{Username: "kafka", Password: "secret", Protocol: "zookeeper", ServerName: "zk-sasl-md5"}
		if _, err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Next(challenge); err != nil {
			return
		}
		if _, done, err := c.Next(rspauth); err == nil || done {
			t.Fatalf("rspauth %q accepted for challenge %q", rspauth, challenge)
		}
	})
}
