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
