package interbroker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/internal/testpki"
	"github.com/kzadmin/kzadmin/security"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/security/tlsconf"
	"github.com/kzadmin/kzadmin/security/zkacl"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// The README's examples name these; the test puts real files there.
const (
	readmeDir     = "/etc/kzadmin/"
	readmeConnect = "zk1:2181/kafka"
)

// sharedZK serves the README's kzadmin commands; the heavy tests start
// their own ZooKeeper next to their broker.
var sharedZK = zktest.Shared{Options: zkserver.Options{HeapMB: 256}}

func TestMain(m *testing.M) {
	code := m.Run()
	sharedZK.Close()
	os.Exit(code)
}

// fencedBlocks returns the bodies of the blocks fenced with ```lang in
// section, in order.
func fencedBlocks(section, lang string) []string {
	var out []string
	var cur []string
	in := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```"+lang:
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			out = append(out, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

// readmeSection is the README's "## Security" section.
func readmeSection(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	start := strings.Index(s, "\n## Security\n")
	if start < 0 {
		t.Fatal("README.md has no ## Security section")
	}
	s = s[start+1:]
	if end := strings.Index(s[3:], "\n## "); end >= 0 {
		s = s[:end+3]
	}
	return s
}

// readmeFiles writes the keystore and truststore the examples name, and
// the JAAS file, the Security section's jaas block.
func readmeFiles(t *testing.T) string {
	t.Helper()
	ca, err := testpki.NewCA("readme-ca")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(testpki.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := testpki.WriteFile(dir, "kzadmind.pem", leaf.KeystorePEM()); err != nil {
		t.Fatal(err)
	}
	if _, err := testpki.WriteFile(dir, "ca.pem", ca.PEM()); err != nil {
		t.Fatal(err)
	}
	// The DIGEST-MD5 example, then the Kerberos one with its keytab and
	// krb5.conf.
	jaas := fencedBlocks(readmeSection(t), "jaas")
	if len(jaas) != 2 {
		t.Fatalf("found %d jaas blocks in the Security section, want 2", len(jaas))
	}
	for i, name := range []string{"kafka_server_jaas.conf", "kzadmind_jaas.conf"} {
		text := strings.ReplaceAll(jaas[i], readmeDir, dir+"/")
		if _, err := testpki.WriteFile(dir, name, []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	kt := keytab.New()
	if err := kt.AddEntry("kafka/kzadmind.example.com", "EXAMPLE.COM", "secret", time.Now(), 1,
		etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	ktBytes, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testpki.WriteFile(dir, "kzadmind.keytab", ktBytes); err != nil {
		t.Fatal(err)
	}
	krb5 := "[libdefaults]\n  default_realm = EXAMPLE.COM\n[realms]\n  EXAMPLE.COM = {\n    kdc = kdc.example.com\n  }\n"
	if _, err := testpki.WriteFile(dir, "krb5.conf", []byte(krb5)); err != nil {
		t.Fatal(err)
	}
	return dir + "/"
}

// TestREADMESecurityProperties loads each properties example of the
// README's Security section, added to node.id and zookeeper.connect, as
// kzadmind does (config.Load: every key known and valid), then builds
// what kzadmind builds from it: each listener's TLS and SASL, the
// authorizer settings, the dialer for its connections to brokers and the
// TLS towards ZooKeeper.
func TestREADMESecurityProperties(t *testing.T) {
	blocks := fencedBlocks(readmeSection(t), "properties")
	if len(blocks) < 8 {
		t.Fatalf("found %d properties blocks in the Security section, want at least 8", len(blocks))
	}
	dir := readmeFiles(t)
	for i, b := range blocks {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			text := "node.id=3000\nzookeeper.connect=" + readmeConnect + "\n" + strings.ReplaceAll(b, readmeDir, dir) + "\n"
			path, err := testpki.WriteFile(t.TempDir(), "kzadmind.properties", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			l, err := config.Load(config.LoadOptions{File: path})
			if err != nil {
				t.Fatalf("config.Load of\n%s\n: %v", b, err)
			}
			if len(l.UnknownKeys) > 0 {
				t.Fatalf("unknown keys %q in\n%s", l.UnknownKeys, b)
			}
			checkBuilds(t, l.Config)
		})
	}
}

// checkBuilds builds the listeners, the authorizer settings and the
// broker dialer from conf, as the daemon does.
func checkBuilds(t *testing.T, conf config.Config) {
	t.Helper()
	noUsers := func(context.Context, scram.Mechanism, string) (scram.Credential, bool, error) {
		return scram.Credential{}, false, nil
	}
	for _, ln := range conf.Listeners {
		proto := string(conf.ListenerSecurityProtocolMap[ln.Name])
		if _, err := security.NewListener(security.ListenerOptions{Name: ln.Name, Protocol: proto,
			Props: conf.Property, SCRAM: noUsers}); err != nil {
			t.Errorf("listener %s: %v", ln.Name, err)
		}
	}
	if _, _, err := security.AuthorizerSettings(conf.Property); err != nil {
		t.Errorf("authorizer: %v", err)
	}
	zo := zkadmin.Options{}
	digest, _ := conf.Property(config.ZooKeeperDigestKey)
	zkacl.ConnectOptions(&zo, conf.ZooKeeper.SetACL, digest)
	var err error
	if zo.TLS, err = tlsconf.ZooKeeperClientConfig(conf.Property); err != nil {
		t.Errorf("TLS to ZooKeeper: %v", err)
	}
	if zo.SASL, err = zkacl.SASLFromConfig(conf.Property); err != nil {
		t.Errorf("SASL to ZooKeeper: %v", err)
	}
	if err := zkacl.RequireIdentity(conf.ZooKeeper.SetACL, zo); err != nil {
		t.Errorf("ZooKeeper identity: %v", err)
	}
	name := conf.ControllerToBrokerListenerName()
	if _, err := security.NewClientDialer(security.ClientOptions{Listener: name,
		Protocol: string(conf.ListenerSecurityProtocolMap[name]), Props: conf.Property}); err != nil {
		t.Errorf("connections to brokers: %v", err)
	}
	if rules, ok := conf.Property("ssl.principal.mapping.rules"); ok {
		mr, err := tlsconf.ParseMappingRules(rules)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := mr.Map("CN=alice,OU=Users"); err != nil || got != "alice" {
			t.Errorf("mapping rules map CN=alice,OU=Users to %q, %v; the README says alice", got, err)
		}
	}
}

// TestREADMESecurityCommands runs each kzadmin command of the README's
// Security section, in order, against a real ZooKeeper.
func TestREADMESecurityCommands(t *testing.T) {
	var cmds []string
	for _, b := range fencedBlocks(readmeSection(t), "sh") {
		for _, line := range strings.Split(b, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				cmds = append(cmds, line)
			}
		}
	}
	if len(cmds) < 8 {
		t.Fatalf("found %d kzadmin commands in the Security section, want at least 8", len(cmds))
	}
	zk, chroot := sharedZK.Connect(t, "readme")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := zk.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	connect := sharedZK.Addr(t) + chroot
	for _, c := range cmds {
		args, err := shellWords(strings.ReplaceAll(c, readmeConnect, connect))
		if err != nil || len(args) == 0 || args[0] != "kzadmin" {
			t.Fatalf("%q: not a kzadmin command (%v)", c, err)
		}
		var out, errOut bytes.Buffer
		if code := cli.Run(ctx, args[1:], &out, &errOut, cli.Options{}); code != cli.ExitOK {
			t.Fatalf("%s: exit %d\n%s%s", c, code, out.String(), errOut.String())
		}
	}
}

// shellWords splits a command line on blanks, honouring single and
// double quotes (the README's only shell syntax).
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
