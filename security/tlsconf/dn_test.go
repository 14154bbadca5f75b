package tlsconf

import (
	"context"
	"crypto/x509/pkix"
	"encoding/asn1"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/internal/testpki"
)

var (
	oidCN     = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidC      = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidL      = asn1.ObjectIdentifier{2, 5, 4, 7}
	oidST     = asn1.ObjectIdentifier{2, 5, 4, 8}
	oidO      = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOU     = asn1.ObjectIdentifier{2, 5, 4, 11}
	oidSerial = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidEmail  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
	oidDC     = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}
	oidUID    = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
)

func atv(oid asn1.ObjectIdentifier, v any) pkix.AttributeTypeAndValue {
	return pkix.AttributeTypeAndValue{Type: oid, Value: v}
}

func ia5(s string) asn1.RawValue {
	return asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagIA5String, Bytes: []byte(s)}
}

func utf8v(s string) asn1.RawValue {
	return asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagUTF8String, Bytes: []byte(s)}
}

// dnCases are subjects (in DER order: most significant first) and the
// text Java's X500Principal.getName() gives for them.
func dnCases() []struct {
	rdns pkix.RDNSequence
	want string
} {
	one := func(a ...pkix.AttributeTypeAndValue) []pkix.AttributeTypeAndValue { return a }
	return []struct {
		rdns pkix.RDNSequence
		want string
	}{
		{pkix.RDNSequence{one(atv(oidC, "US")), one(atv(oidST, "CA")), one(atv(oidL, "Palo Alto")),
			one(atv(oidO, "Acme")), one(atv(oidOU, "Eng")), one(atv(oidCN, "alice"))},
			"CN=alice,OU=Eng,O=Acme,L=Palo Alto,ST=CA,C=US"},
		{pkix.RDNSequence{one(atv(oidO, "Acme, Inc.")), one(atv(oidCN, `a+b"c\d<e>f;g`))},
			`CN=a\+b\"c\\d\<e\>f\;g,O=Acme\, Inc.`},
		{pkix.RDNSequence{one(atv(oidCN, "#hash")), one(atv(oidOU, " padded "))},
			`OU=\ padded\ ,CN=\#hash`},
		{pkix.RDNSequence{one(atv(oidEmail, ia5("alice@example.com"))), one(atv(oidCN, "alice"))},
			"CN=alice,1.2.840.113549.1.9.1=#1611616c696365406578616d706c652e636f6d"},
		{pkix.RDNSequence{one(atv(oidSerial, "1234")), one(atv(oidCN, "bob"))},
			"CN=bob,2.5.4.5=#130431323334"},
		{pkix.RDNSequence{one(atv(oidDC, ia5("com"))), one(atv(oidDC, ia5("example"))), one(atv(oidUID, utf8v("u1")))},
			"UID=u1,DC=example,DC=com"},
		{pkix.RDNSequence{one(atv(oidCN, utf8v("zoë")), atv(oidUID, utf8v("z1")))},
			"CN=zoë+UID=z1"},
	}
}

func TestDistinguishedName(t *testing.T) {
	for _, tc := range dnCases() {
		der, err := asn1.Marshal(tc.rdns)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DistinguishedName(der)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if _, err := DistinguishedName([]byte{0x30, 0x03, 0x01}); err == nil {
		t.Error("garbage accepted")
	}
}

// javaCheck runs testdata/Check.java with args, on the Kafka jars'
// classpath when withKafka; it skips when java is missing.
func javaCheck(t *testing.T, withKafka bool, args ...string) []string {
	t.Helper()
	kafka.SkipIfHeavyDisabled(t)
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	src, _ := filepath.Abs("testdata/Check.java")
	jargs := []string{"-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8"}
	if withKafka {
		libs, err := kafka.Libs(ctx)
		if err != nil {
			t.Fatalf("kafka jars: %v", err)
		}
		jargs = append(jargs, "-cp", filepath.Join(libs, "*"))
	}
	cmd := exec.CommandContext(ctx, "java", append(append(jargs, src), args...)...)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("java %v: %v\n%s", args, err, stderr)
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}

// TestDistinguishedNameMatchesJava issues a certificate per case and has
// Java name its subject.
func TestDistinguishedNameMatchesJava(t *testing.T) {
	ca, err := testpki.NewCA("dn-ca")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args := []string{"dn"}
	var want []string
	for i, tc := range dnCases() {
		der, _ := asn1.Marshal(tc.rdns)
		leaf, err := ca.Issue(testpki.Options{RawSubject: der})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, strconv.Itoa(i)+".der")
		if err := os.WriteFile(p, leaf.Cert.Raw, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := SubjectDN(leaf.Cert)
		if err != nil {
			t.Fatal(err)
		}
		args, want = append(args, p), append(want, got)
	}
	java := javaCheck(t, false, args...)
	for i := range want {
		if i >= len(java) || java[i] != want[i] {
			t.Errorf("case %d: go %q, java %q", i, want[i], java)
		}
	}
}
