package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// writeFile writes a properties file in a temp dir and returns its path.
func writeFile(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kzadmin.properties")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// base gives the two keys without defaults, as environment variables.
func base(extra ...string) []string {
	return append([]string{"KZADMIN_NODE_ID=100", "KZADMIN_ZOOKEEPER_CONNECT=zk:2181"}, extra...)
}

func TestEnvName(t *testing.T) {
	tests := map[string]string{
		"zookeeper.connect":              "KZADMIN_ZOOKEEPER_CONNECT",
		"unclean.leader.election.enable": "KZADMIN_UNCLEAN_LEADER_ELECTION_ENABLE",
		"kzadmin.dev":                    "KZADMIN_DEV",
		"kzadmin.http.listen":            "KZADMIN_HTTP_LISTEN",
		"node.id":                        "KZADMIN_NODE_ID",
	}
	for key, want := range tests {
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", key, got, want)
		}
	}
	seen := map[string]string{}
	for _, k := range Keys() {
		if other, dup := seen[k.Env]; dup {
			t.Errorf("keys %s and %s share env %s", other, k.Name, k.Env)
		}
		seen[k.Env] = k.Name
	}
}

// TestParseEveryKey sets each key through the environment (the whole Load
// path) and reads it back as a properties file would spell it.
func TestParseEveryKey(t *testing.T) {
	tests := []struct {
		key, raw, want string
	}{
		{"node.id", " 7 ", "7"},
		{"cluster.id", "q2Lw-vH5T7KQ1l8gM0Xb_A", "q2Lw-vH5T7KQ1l8gM0Xb_A"},
		{"kzadmin.dev", "TRUE", "true"},
		{"zookeeper.connect", "a:1,b/kafka", "a:1,b:2181/kafka"},
		{"zookeeper.session.timeout.ms", "6000", "6000"},
		{"zookeeper.connection.timeout.ms", "2500", "2500"},
		{"zookeeper.set.acl", "true", "true"},
		{"zookeeper.max.in.flight.requests", "32", "32"},
		{"listeners", "plaintext://:9092,INTERNAL://127.0.0.1:9093", "PLAINTEXT://:9092,INTERNAL://127.0.0.1:9093"},
		{"advertised.listeners", "PLAINTEXT://ctl.example:9092", "PLAINTEXT://ctl.example:9092"},
		{"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,internal:plaintext", "INTERNAL:PLAINTEXT,PLAINTEXT:PLAINTEXT"},
		{"inter.broker.listener.name", "plaintext", "PLAINTEXT"},
		{"control.plane.listener.name", "internal", "INTERNAL"},
		{"inter.broker.protocol.version", "2.7", "2.7-IV2"},
		{"delete.topic.enable", "false", "false"},
		{"auto.create.topics.enable", "False", "false"},
		{"num.partitions", "12", "12"},
		{"default.replication.factor", "3", "3"},
		{"offsets.topic.num.partitions", "3", "3"},
		{"offsets.topic.replication.factor", "1", "1"},
		{"offsets.topic.segment.bytes", "1048576", "1048576"},
		{"transaction.state.log.num.partitions", "3", "3"},
		{"transaction.state.log.replication.factor", "1", "1"},
		{"transaction.state.log.min.isr", "1", "1"},
		{"transaction.state.log.segment.bytes", "1048576", "1048576"},
		{"max.broker.partitions", "4000", "4000"},
		{"max.partitions", "200000", "200000"},
		{"partition.limits.error.code", "88", "88"},
		{"unclean.leader.election.enable", "true", "true"},
		{"unclean.recovery.strategy", "aggressive", "Aggressive"},
		{"unclean.recovery.manager.enabled", "true", "true"},
		{"unclean.recovery.timeout.ms", "60000", "60000"},
		{"auto.leader.rebalance.enable", "false", "false"},
		{"kzadmin.warm.standby", "true", "true"},
		{"kzadmin.controller.reclaim.from.brokers", "False", "false"},
		{"leader.imbalance.per.broker.percentage", "25", "25"},
		{"leader.imbalance.check.interval.seconds", "30", "30"},
		{"controller.socket.timeout.ms", "5000", "5000"},
		{"request.timeout.ms", "15000", "15000"},
		{"kzadmin.http.listen", ":9000", ":9000"},
		{"log.level", "DEBUG", "debug"},
		{"log.format", "Console", "console"},
		{"ssl.keystore.type", "PEM", "PEM"},
		{"ssl.keystore.location", "/etc/kzadmin/server.pem", "/etc/kzadmin/server.pem"},
		{"ssl.keystore.key", "-----BEGIN PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----"},
		{"ssl.keystore.certificate.chain", "-----BEGIN CERTIFICATE-----", "-----BEGIN CERTIFICATE-----"},
		{"ssl.key.password", "pw", "pw"},
		{"ssl.keystore.password", "kpw", "kpw"},
		{"ssl.truststore.password", "tpw", "tpw"},
		{"ssl.truststore.type", "pem", "pem"},
		{"ssl.truststore.location", "/etc/kzadmin/ca.pem", "/etc/kzadmin/ca.pem"},
		{"ssl.truststore.certificates", "-----BEGIN CERTIFICATE-----", "-----BEGIN CERTIFICATE-----"},
		{"ssl.client.auth", "required", "required"},
		{"ssl.enabled.protocols", "TLSv1.2,TLSv1.3", "TLSv1.2,TLSv1.3"},
		{"ssl.cipher.suites", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
		{"ssl.principal.mapping.rules", "RULE:^CN=(.*?),.*$/$1/,DEFAULT", "RULE:^CN=(.*?),.*$/$1/,DEFAULT"},
		{"sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256", "PLAIN,SCRAM-SHA-256"},
		{"sasl.server.max.receive.size", "8192", "8192"},
		{"sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512", "SCRAM-SHA-512"},
		{"sasl.jaas.config", `org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b";`,
			`org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b";`},
		{"ssl.endpoint.identification.algorithm", "", ""},
		{"connection.failed.authentication.delay.ms", "0", "0"},
		{"authorizer.class.name", "kafka.security.authorizer.AclAuthorizer", "kafka.security.authorizer.AclAuthorizer"},
		{"super.users", "User:admin;User:ops", "User:admin;User:ops"},
		{"allow.everyone.if.no.acl.found", "true", "true"},
		{ZooKeeperDigestKey, "kzadmin:secret", "kzadmin:secret"},
		{"zookeeper.ssl.client.enable", "true", "true"},
		{"zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty", "org.apache.zookeeper.ClientCnxnSocketNetty"},
		{"zookeeper.ssl.keystore.location", "/etc/kzadmin/zk.pem", "/etc/kzadmin/zk.pem"},
		{"zookeeper.ssl.keystore.password", "zkpw", "zkpw"},
		{"zookeeper.ssl.keystore.type", "PKCS12", "PKCS12"},
		{"zookeeper.ssl.truststore.location", "/etc/kzadmin/zk-ca.pem", "/etc/kzadmin/zk-ca.pem"},
		{"zookeeper.ssl.truststore.password", "zktpw", "zktpw"},
		{"zookeeper.ssl.truststore.type", "jks", "jks"},
		{"zookeeper.ssl.protocol", "TLSv1.3", "TLSv1.3"},
		{"zookeeper.ssl.enabled.protocols", "TLSv1.2,TLSv1.3", "TLSv1.2,TLSv1.3"},
		{"zookeeper.ssl.cipher.suites", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
		{"zookeeper.ssl.endpoint.identification.algorithm", "", ""},
		{"zookeeper.ssl.crl.enable", "false", "false"},
		{"zookeeper.ssl.ocsp.enable", "FALSE", "FALSE"},
		{ZooKeeperJAASFileKey, "/etc/kafka/jaas.conf", "/etc/kafka/jaas.conf"},
		{"zookeeper.sasl.clientconfig", "ZkClient", "ZkClient"},
		{Krb5ConfKey, "/etc/kafka/krb5.conf", "/etc/kafka/krb5.conf"},
		{"zookeeper.sasl.client.username", "zk", "zk"},
		{"sasl.kerberos.service.name", "kafka", "kafka"},
		{"sasl.kerberos.principal.to.local.rules", "DEFAULT", "DEFAULT"},
		{"zookeeper.sasl.client.canonicalize.hostname", "false", "false"},
		{"zookeeper.server.principal", "zookeeper/zk1@EXAMPLE.COM", "zookeeper/zk1@EXAMPLE.COM"},
		{"eligible.leader.replicas.enable", "TRUE", "true"},
		{"min.insync.replicas", "2", "2"},
		{DelegationTokenSecretKey, "s3cret", "s3cret"},
		{DelegationTokenMasterKey, "old", "old"},
		{"delegation.token.max.lifetime.ms", "1000", "1000"},
		{"delegation.token.expiry.time.ms", "500", "500"},
		{"delegation.token.expiry.check.interval.ms", "250", "250"},
		{"controller.quota.window.num", "5", "5"},
		{"controller.quota.window.size.seconds", "2", "2"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.key] = true
		env := base(EnvName(tt.key) + "=" + tt.raw)
		switch tt.key {
		case "listeners":
			env = append(env, "KZADMIN_LISTENER_SECURITY_PROTOCOL_MAP=PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT")
		case "control.plane.listener.name":
			env = append(env, "KZADMIN_LISTENERS=PLAINTEXT://:9092,INTERNAL://:9093",
				"KZADMIN_LISTENER_SECURITY_PROTOCOL_MAP=PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT")
		}
		l, err := Load(LoadOptions{Env: env})
		if err != nil {
			t.Errorf("%s=%q: %v", tt.key, tt.raw, err)
			continue
		}
		spec, _ := lookupSpec(tt.key)
		if got := spec.get(l.Config); got != tt.want {
			t.Errorf("%s=%q read back as %q, want %q", tt.key, tt.raw, got, tt.want)
		}
		if l.Sources[tt.key] != SourceEnv {
			t.Errorf("%s source = %v", tt.key, l.Sources[tt.key])
		}
	}
	for _, k := range Keys() {
		if !covered[k.Name] {
			t.Errorf("key %s has no parse row", k.Name)
		}
	}
}

// TestParseErrors gives each kind of bad text and the exact message,
// including where the value came from.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		key, raw, want string
	}{
		{"node.id", "one", `config: node.id="one": must be a 32-bit integer (set by env KZADMIN_NODE_ID)`},
		{"node.id", "4294967296", `config: node.id="4294967296": must be a 32-bit integer (set by env KZADMIN_NODE_ID)`},
		{"kzadmin.dev", "yes", `config: kzadmin.dev="yes": must be true or false (set by env KZADMIN_DEV)`},
		{"zookeeper.connect", "zk:2181/kafka/", `config: zookeeper.connect="zk:2181/kafka/": chroot "/kafka/" must not end with '/' (set by env KZADMIN_ZOOKEEPER_CONNECT)`},
		{"zookeeper.session.timeout.ms", "18s", `config: zookeeper.session.timeout.ms="18s": must be a 32-bit integer (set by env KZADMIN_ZOOKEEPER_SESSION_TIMEOUT_MS)`},
		{"unclean.recovery.timeout.ms", "9223372036854775807", `config: unclean.recovery.timeout.ms="9223372036854775807": must be at most 9223372036854 (set by env KZADMIN_UNCLEAN_RECOVERY_TIMEOUT_MS)`},
		{"listeners", "localhost:9092", `config: listeners="localhost:9092": "localhost:9092" is not NAME://host:port (set by env KZADMIN_LISTENERS)`},
		{"listener.security.protocol.map", "A:TLS", `config: listener.security.protocol.map="A:TLS": entry "A:TLS": protocol must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL (set by env KZADMIN_LISTENER_SECURITY_PROTOCOL_MAP)`},
		{"inter.broker.protocol.version", "3.10", `config: inter.broker.protocol.version="3.10": must be a Kafka version from 0.8.0 to 3.9, as a release (3.9) or with its internal version (2.7-IV2) (set by env KZADMIN_INTER_BROKER_PROTOCOL_VERSION)`},
		{"partition.limits.error.code", "40000", `config: partition.limits.error.code="40000": must be a 16-bit integer (set by env KZADMIN_PARTITION_LIMITS_ERROR_CODE)`},
		{"unclean.recovery.strategy", "Foo", `config: unclean.recovery.strategy="Foo": must be one of None, Balanced, Aggressive (set by env KZADMIN_UNCLEAN_RECOVERY_STRATEGY)`},
		// Range checks run after parsing and also name the origin.
		{"partition.limits.error.code", "7", `config: partition.limits.error.code="7": must be 44 (POLICY_VIOLATION) or 88 (WILL_EXCEED_PARTITION_LIMITS) (set by env KZADMIN_PARTITION_LIMITS_ERROR_CODE)`},
		{"num.partitions", "0", `config: num.partitions="0": must be at least 1 (set by env KZADMIN_NUM_PARTITIONS)`},
		{"log.level", "loud", `config: log.level="loud": must be one of trace, debug, info, warn, error, fatal, panic, disabled (set by env KZADMIN_LOG_LEVEL)`},
	}
	for _, tt := range tests {
		_, err := Load(LoadOptions{Env: base(EnvName(tt.key) + "=" + tt.raw)})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s=%q:\n got %v\nwant %s", tt.key, tt.raw, err, tt.want)
		}
	}
}

func TestPrecedence(t *testing.T) {
	file := writeFile(t,
		"node.id=1",
		"zookeeper.connect=file:2181",
		"num.partitions=2",
		"default.replication.factor=2",
		"max.partitions=2",
	)
	env := []string{
		"KZADMIN_NUM_PARTITIONS=3",
		"KZADMIN_DEFAULT_REPLICATION_FACTOR=3",
		"PATH=/usr/bin",
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--num.partitions=4"}); err != nil {
		t.Fatal(err)
	}
	l, err := Load(LoadOptions{File: file, Env: env, Flags: fs})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	got := []int32{c.NodeID, c.NumPartitions, c.DefaultReplicationFactor, c.MaxPartitions, c.MaxBrokerPartitions}
	want := []int32{1, 4, 3, 2, Unlimited}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("node.id, num.partitions, rf, max.partitions, max.broker.partitions = %v, want %v", got, want)
	}
	wantSrc := map[string]Source{
		"node.id": SourceFile, "num.partitions": SourceFlag, "default.replication.factor": SourceEnv,
		"max.partitions": SourceFile, "max.broker.partitions": SourceDefault,
	}
	for k, w := range wantSrc {
		if l.Sources[k] != w {
			t.Errorf("source of %s = %v, want %v", k, l.Sources[k], w)
		}
	}
	if len(l.Sources) != len(Keys()) {
		t.Errorf("%d sources for %d keys", len(l.Sources), len(Keys()))
	}
}

// Flags the user did not set never override, even with AddFlags' defaults.
func TestUnsetFlagsDoNotOverride(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	l, err := Load(LoadOptions{Env: base("KZADMIN_NUM_PARTITIONS=6"), Flags: fs})
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.NumPartitions != 6 || l.Sources["num.partitions"] != SourceEnv {
		t.Errorf("num.partitions = %d from %v", l.Config.NumPartitions, l.Sources["num.partitions"])
	}
}

// Callers may name flags with dashes, with their own types, or by alias.
func TestFlagNamesAndTypes(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("zookeeper", "", "")
	fs.Bool("dev", false, "")
	fs.Int32("num-partitions", 1, "")
	fs.StringSlice("listeners", nil, "")
	fs.Duration("unused", time.Second, "")
	err := fs.Parse([]string{"--zookeeper=z1:2181,z2:2181/k", "--dev", "--num-partitions=9",
		"--listeners=PLAINTEXT://:1", "--listeners=PLAINTEXT2://:2"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(LoadOptions{
		Env:         []string{"KZADMIN_LISTENER_SECURITY_PROTOCOL_MAP=PLAINTEXT:PLAINTEXT,PLAINTEXT2:PLAINTEXT"},
		Flags:       fs,
		FlagAliases: map[string]string{"zookeeper": "zookeeper.connect", "dev": "kzadmin.dev"},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.ZooKeeper.Connect.String() != "z1:2181,z2:2181/k" || !c.Dev || c.NumPartitions != 9 ||
		formatListeners(c.Listeners) != "PLAINTEXT://:1,PLAINTEXT2://:2" {
		t.Errorf("got zk=%s dev=%v np=%d listeners=%s", c.ZooKeeper.Connect, c.Dev, c.NumPartitions, formatListeners(c.Listeners))
	}
	for _, k := range []string{"zookeeper.connect", "kzadmin.dev", "num.partitions", "listeners"} {
		if l.Sources[k] != SourceFlag {
			t.Errorf("source of %s = %v", k, l.Sources[k])
		}
	}
}

func TestFlagErrors(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("zookeeper", "", "")
	fs.String("zookeeper.connect", "", "")
	if err := fs.Parse([]string{"--zookeeper=a", "--zookeeper.connect=b"}); err != nil {
		t.Fatal(err)
	}
	_, err := Load(LoadOptions{Flags: fs, FlagAliases: map[string]string{"zookeeper": "zookeeper.connect"}})
	if err == nil || !strings.Contains(err.Error(), "both set zookeeper.connect") {
		t.Errorf("two flags for one key: %v", err)
	}
	_, err = Load(LoadOptions{Flags: fs, FlagAliases: map[string]string{"zk": "zookeeper.conect"}})
	if err == nil || err.Error() != `config: flag alias --zk names unknown key "zookeeper.conect"` {
		t.Errorf("alias to unknown key: %v", err)
	}
	fs2 := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs2)
	_ = fs2.Parse([]string{"--num.partitions=x"})
	_, err = Load(LoadOptions{Env: base(), Flags: fs2})
	if err == nil || err.Error() != `config: num.partitions="x": must be a 32-bit integer (set by flag --num.partitions)` {
		t.Errorf("bad flag value: %v", err)
	}
}

func TestFileUnknownKeysAndOrigins(t *testing.T) {
	file := writeFile(t,
		"# a broker's server.properties",
		"broker.id=0",
		"log.dirs=/tmp/kafka-logs",
		"node.id=5",
		"zookeeper.connect=localhost:2181/kafka",
		"num.partitions=2",
		"num.partitions=0",
		"Zookeeper.Connect=case-matters",
	)
	l, err := Load(LoadOptions{File: file})
	want := `config: num.partitions="0": must be at least 1 (set by file ` + file + `:7)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if !reflect.DeepEqual(l.UnknownKeys, []string{"Zookeeper.Connect", "broker.id", "log.dirs"}) {
		t.Errorf("unknown keys = %q", l.UnknownKeys)
	}
	if l.Config.ZooKeeper.Connect.Chroot != "/kafka" || l.Config.NodeID != 5 {
		t.Errorf("config = %+v", l.Config)
	}
}

func TestFileErrors(t *testing.T) {
	_, err := Load(LoadOptions{File: filepath.Join(t.TempDir(), "missing.properties")})
	if err == nil || !strings.Contains(err.Error(), "config: read ") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	bad := writeFile(t, "ok=1", "a=\\uZZZZ")
	_, err = Load(LoadOptions{File: bad})
	if err == nil || !strings.Contains(err.Error(), "config: parse "+bad+": line 2: malformed") {
		t.Errorf("bad escape: %v", err)
	}
}

func TestUnknownEnv(t *testing.T) {
	l, err := Load(LoadOptions{Env: base("KZADMIN_ZOOKEPER_CONNECT=typo", "KZADMIN_DEV=false", "HOME=/root", "KZADMIN_BROKEN")})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.UnknownEnv, []string{"KZADMIN_ZOOKEPER_CONNECT"}) {
		t.Errorf("unknown env = %q", l.UnknownEnv)
	}
}

func TestEmptyEnvValueCounts(t *testing.T) {
	l, err := Load(LoadOptions{Env: base("KZADMIN_HTTP_LISTEN=")})
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.HTTPListen != "" || l.Sources["kzadmin.http.listen"] != SourceEnv {
		t.Errorf("http listen = %q from %v", l.Config.HTTPListen, l.Sources["kzadmin.http.listen"])
	}
}

func TestDevDefaults(t *testing.T) {
	tests := []struct {
		name       string
		env        []string
		wantNode   int32
		wantFormat string
	}{
		{"dev fills node.id and console", []string{"KZADMIN_DEV=true"}, DevNodeID, "console"},
		{"dev keeps explicit values", []string{"KZADMIN_DEV=true", "KZADMIN_NODE_ID=9", "KZADMIN_LOG_FORMAT=json"}, 9, "json"},
		{"not dev", base(), 100, "json"},
	}
	for _, tt := range tests {
		l, err := Load(LoadOptions{Env: tt.env})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if l.Config.NodeID != tt.wantNode || l.Config.LogFormat != tt.wantFormat {
			t.Errorf("%s: node.id=%d log.format=%s", tt.name, l.Config.NodeID, l.Config.LogFormat)
		}
	}
	_, err := Load(LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "zookeeper.connect") || !strings.Contains(err.Error(), "node.id") {
		t.Errorf("empty load outside dev: %v", err)
	}
}

// Load must not read the process environment unless asked.
func TestLoadIgnoresProcessEnv(t *testing.T) {
	t.Setenv("KZADMIN_NUM_PARTITIONS", "77")
	l, err := Load(LoadOptions{Env: base()})
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.NumPartitions != 1 {
		t.Errorf("num.partitions = %d, read from the process environment", l.Config.NumPartitions)
	}
	l, err = Load(LoadOptions{Env: append(base(), os.Environ()...)})
	if err != nil || l.Config.NumPartitions != 77 {
		t.Errorf("with os.Environ(): %d, %v", l.Config.NumPartitions, err)
	}
}

func TestAddFlags(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs)
	for _, k := range Keys() {
		f := fs.Lookup(k.Name)
		if f == nil {
			t.Errorf("no flag for %s", k.Name)
			continue
		}
		if f.DefValue != k.Default || !strings.Contains(f.Usage, k.Env) {
			t.Errorf("flag %s: default %q usage %q", k.Name, f.DefValue, f.Usage)
		}
	}
}

func TestSourceString(t *testing.T) {
	for s, want := range map[Source]string{SourceDefault: "default", SourceFile: "file", SourceEnv: "env", SourceFlag: "flag"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q", s, s.String())
		}
	}
}
