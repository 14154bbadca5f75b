package config

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// valid returns the defaults plus the two keys that have no default outside
// dev mode.
func valid() Config {
	c := Default()
	c.NodeID = 100
	c.ZooKeeper.Connect = ZKConnect{Servers: []string{"zk:2181"}}
	return c
}

// TestDefaults pins every key's default as a properties file spells it.
// Kafka 3.9's defaults where the key is Kafka's.
func TestDefaults(t *testing.T) {
	want := map[string]string{
		"node.id":                                   "-1",
		"cluster.id":                                "",
		"kzadmin.dev":                               "false",
		"zookeeper.connect":                         "",
		"zookeeper.session.timeout.ms":              "18000",
		"zookeeper.connection.timeout.ms":           "0",
		"zookeeper.set.acl":                         "false",
		"zookeeper.max.in.flight.requests":          "10",
		"listeners":                                 "PLAINTEXT://:9092",
		"advertised.listeners":                      "",
		"listener.security.protocol.map":            "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL",
		"inter.broker.listener.name":                "",
		"control.plane.listener.name":               "",
		"inter.broker.protocol.version":             "3.9-IV0",
		"delete.topic.enable":                       "true",
		"auto.create.topics.enable":                 "true",
		"num.partitions":                            "1",
		"default.replication.factor":                "1",
		"offsets.topic.num.partitions":              "50",
		"offsets.topic.replication.factor":          "3",
		"offsets.topic.segment.bytes":               "104857600",
		"transaction.state.log.num.partitions":      "50",
		"transaction.state.log.replication.factor":  "3",
		"transaction.state.log.min.isr":             "2",
		"transaction.state.log.segment.bytes":       "104857600",
		"max.broker.partitions":                     "2147483647",
		"max.partitions":                            "2147483647",
		"partition.limits.error.code":               "44",
		"unclean.leader.election.enable":            "false",
		"unclean.recovery.strategy":                 "Balanced",
		"unclean.recovery.manager.enabled":          "false",
		"unclean.recovery.timeout.ms":               "300000",
		"eligible.leader.replicas.enable":           "false",
		"min.insync.replicas":                       "1",
		"auto.leader.rebalance.enable":              "true",
		"kzadmin.warm.standby":                      "false",
		"kzadmin.controller.reclaim.from.brokers":   "true",
		"leader.imbalance.per.broker.percentage":    "10",
		"leader.imbalance.check.interval.seconds":   "300",
		"controller.socket.timeout.ms":              "30000",
		"request.timeout.ms":                        "30000",
		"kzadmin.http.listen":                       "127.0.0.1:9644",
		"log.level":                                 "info",
		"log.format":                                "json",
		"delegation.token.max.lifetime.ms":          "604800000",
		"delegation.token.expiry.time.ms":           "86400000",
		"delegation.token.expiry.check.interval.ms": "3600000",
		"controller.quota.window.num":               "11",
		"controller.quota.window.size.seconds":      "1",
		DelegationTokenSecretKey:                    "",
		DelegationTokenMasterKey:                    "",
	}
	for _, k := range slices.Concat(securityKeys(), zooKeeperTLSKeys()) {
		want[k.name] = "" // unset: the security package's default applies
	}
	keys := Keys()
	if len(keys) != len(want) {
		t.Errorf("%d keys, want %d", len(keys), len(want))
	}
	for _, k := range keys {
		w, ok := want[k.Name]
		if !ok {
			t.Errorf("unexpected key %s", k.Name)
			continue
		}
		if k.Default != w {
			t.Errorf("default %s = %q, want %q", k.Name, k.Default, w)
		}
		if k.Doc == "" {
			t.Errorf("key %s has no doc", k.Name)
		}
	}
	d := Default()
	if d.ZooKeeper.EffectiveConnectionTimeout() != 18*time.Second {
		t.Errorf("connection timeout falls back to %v", d.ZooKeeper.EffectiveConnectionTimeout())
	}
	if d.EffectiveInterBrokerListenerName() != "PLAINTEXT" {
		t.Errorf("inter-broker listener = %q", d.EffectiveInterBrokerListenerName())
	}
	if !reflect.DeepEqual(d.EffectiveAdvertisedListeners(), d.Listeners) {
		t.Error("advertised listeners do not fall back to listeners")
	}
	if d.Limits() != (Limits{Unlimited, Unlimited}) || !d.Limits().IsUnlimited() {
		t.Errorf("limits = %+v", d.Limits())
	}
}

// Default alone must fail only on the two keys without a default.
func TestDefaultNeedsNodeIDAndZooKeeper(t *testing.T) {
	err := Default().Validate()
	want := `config: node.id="-1": must be at least 0 (an id no broker uses)` + "\n" +
		`config: zookeeper.connect="": required outside dev mode: give host:port[,host:port...][/chroot]`
	if err == nil || err.Error() != want {
		t.Errorf("Default().Validate() =\n%v\nwant\n%s", err, want)
	}
	if err := valid().Validate(); err != nil {
		t.Errorf("valid config refused: %v", err)
	}
	dev := Default()
	dev.Dev, dev.NodeID = true, DevNodeID
	if err := dev.Validate(); err != nil {
		t.Errorf("dev config without zookeeper.connect refused: %v", err)
	}
}

// TestValidateErrors has one row per rule, each with the exact message.
func TestValidateErrors(t *testing.T) {
	plaintext := func(names ...string) map[string]SecurityProtocol {
		m := map[string]SecurityProtocol{}
		for _, n := range names {
			m[n] = ProtocolPlaintext
		}
		return m
	}
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"node.id negative", func(c *Config) { c.NodeID = -5 },
			`config: node.id="-5": must be at least 0 (an id no broker uses)`},
		{"cluster.id short", func(c *Config) { c.ClusterID = "abc" },
			`config: cluster.id="abc": must be a Kafka cluster id: 22 characters of URL-safe base64 encoding 16 bytes`},
		{"cluster.id std base64", func(c *Config) { c.ClusterID = "q2Lw+vH5T7KQ1l8gM0Xb/A" },
			`config: cluster.id="q2Lw+vH5T7KQ1l8gM0Xb/A": must be a Kafka cluster id: 22 characters of URL-safe base64 encoding 16 bytes`},
		{"zookeeper chroot", func(c *Config) { c.ZooKeeper.Connect.Chroot = "kafka" },
			`config: zookeeper.connect="zk:2181kafka": chroot "kafka" must start with '/'`},
		{"session timeout", func(c *Config) { c.ZooKeeper.SessionTimeout = 0 },
			`config: zookeeper.session.timeout.ms="0": must be at least 1`},
		{"session timeout over int32", func(c *Config) { c.ZooKeeper.SessionTimeout = 30 * 24 * time.Hour },
			`config: zookeeper.session.timeout.ms="2592000000": must be at most 2147483647`},
		{"connection timeout", func(c *Config) { c.ZooKeeper.ConnectionTimeout = -time.Second },
			`config: zookeeper.connection.timeout.ms="-1000": must be at least 0`},
		{"in flight", func(c *Config) { c.ZooKeeper.MaxInFlightRequests = 0 },
			`config: zookeeper.max.in.flight.requests="0": must be at least 1`},
		{"no listeners", func(c *Config) { c.Listeners = nil },
			`config: listeners="": must name at least one listener, e.g. PLAINTEXT://:9092`},
		{"duplicate listener name", func(c *Config) { c.Listeners = []Listener{{"PLAINTEXT", "", 1}, {"PLAINTEXT", "", 2}} },
			`config: listeners="PLAINTEXT://:1,PLAINTEXT://:2": listener name PLAINTEXT appears twice`},
		{"duplicate port", func(c *Config) {
			c.Listeners = []Listener{{"A", "", 9092}, {"PLAINTEXT", "", 9092}}
			c.ListenerSecurityProtocolMap = plaintext("A", "PLAINTEXT")
		}, `config: listeners="A://:9092,PLAINTEXT://:9092": listeners A and PLAINTEXT both use port 9092`},
		{"listener without name", func(c *Config) { c.Listeners = []Listener{{"", "", 1}} },
			`config: listeners="://:1": every listener needs a name`},
		{"listener port range", func(c *Config) { c.Listeners = []Listener{{"PLAINTEXT", "", 70000}} },
			`config: listeners="PLAINTEXT://:70000": listener PLAINTEXT: port must be between 0 and 65535`},
		{"unmapped listener", func(c *Config) {
			c.Listeners = []Listener{{"PLAINTEXT", "", 9092}, {"INTERNAL", "", 9093}}
		}, `config: listener.security.protocol.map="PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL": has no entry for listener INTERNAL`},
		{"sasl listener without mechanisms", func(c *Config) {
			c.Listeners = []Listener{{"PLAINTEXT", "", 9092}, {"SASL_SSL", "", 9093}}
		}, `config: sasl.enabled.mechanisms="": listener SASL_SSL uses SASL_SSL and needs SASL mechanisms (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512); GSSAPI is not offered`},
		{"ssl.client.auth", func(c *Config) { c.Props = map[string]string{"ssl.client.auth": "always"} },
			`config: ssl.client.auth="always": must be one of none, requested, required`},
		{"zookeeper crl", func(c *Config) { c.Props = map[string]string{"zookeeper.ssl.crl.enable": "true"} },
			`config: zookeeper.ssl.crl.enable="true": true is not supported`},
		{"zookeeper protocol", func(c *Config) { c.Props = map[string]string{"zookeeper.ssl.protocol": "SSLv3"} },
			`config: zookeeper.ssl.protocol="SSLv3": must be one of TLSv1.2, TLSv1.3, TLS`},
		{"digest hidden", func(c *Config) { c.Props = map[string]string{ZooKeeperDigestKey: "secret"} },
			`config: kzadmin.zookeeper.digest="[hidden]": must be user:password`},
		{"bad protocol in map", func(c *Config) {
			c.ListenerSecurityProtocolMap = map[string]SecurityProtocol{"PLAINTEXT": "PLAINTEXT", "X": "TLS"}
		},
			`config: listener.security.protocol.map="PLAINTEXT:PLAINTEXT,X:TLS": protocols must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL`},
		{"advertised not in listeners", func(c *Config) {
			c.AdvertisedListeners = []Listener{{"PLAINTEXT", "h", 9092}, {"OTHER", "h", 9093}}
		}, `config: advertised.listeners="PLAINTEXT://h:9092,OTHER://h:9093": listener OTHER is not among listeners (PLAINTEXT)`},
		{"advertised duplicate", func(c *Config) {
			c.AdvertisedListeners = []Listener{{"PLAINTEXT", "h", 9092}, {"PLAINTEXT", "g", 9092}}
		}, `config: advertised.listeners="PLAINTEXT://h:9092,PLAINTEXT://g:9092": listener name PLAINTEXT appears twice`},
		{"advertised 0.0.0.0", func(c *Config) { c.AdvertisedListeners = []Listener{{"PLAINTEXT", "0.0.0.0", 9092}} },
			`config: advertised.listeners="PLAINTEXT://0.0.0.0:9092": cannot advertise the non-routable address 0.0.0.0`},
		{"inter broker listener", func(c *Config) { c.InterBrokerListenerName = "INTERNAL" },
			`config: inter.broker.listener.name="INTERNAL": must be one of the advertised listener names (PLAINTEXT)`},
		{"inter broker default needs PLAINTEXT", func(c *Config) {
			c.Listeners = []Listener{{"CLIENT", "", 9092}}
			c.ListenerSecurityProtocolMap = plaintext("CLIENT")
		}, `config: inter.broker.listener.name="PLAINTEXT": must be one of the advertised listener names (CLIENT)`},
		{"control plane not advertised", func(c *Config) { c.ControlPlaneListenerName = "CONTROL" },
			`config: control.plane.listener.name="CONTROL": must be one of the advertised listener names (PLAINTEXT)`},
		{"control plane is the inter-broker listener", func(c *Config) { c.ControlPlaneListenerName = "PLAINTEXT" },
			`config: control.plane.listener.name="PLAINTEXT": must differ from the inter-broker listener name`},
		{"inter-broker sasl mechanism", func(c *Config) { c.Props = map[string]string{"sasl.mechanism.inter.broker.protocol": "OAUTHBEARER"} },
			`config: sasl.mechanism.inter.broker.protocol="OAUTHBEARER": must be one of GSSAPI, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512`},
		{"endpoint identification", func(c *Config) { c.Props = map[string]string{"ssl.endpoint.identification.algorithm": "http"} },
			`config: ssl.endpoint.identification.algorithm="http": must be https or empty`},
		{"ibp", func(c *Config) { c.InterBrokerProtocolVersion = IBPLatest + 1 },
			`config: inter.broker.protocol.version="IBP(55)": must be a Kafka version from 0.8.0 to 3.9-IV0`},
		{"num.partitions", func(c *Config) { c.NumPartitions = 0 },
			`config: num.partitions="0": must be at least 1`},
		{"replication factor low", func(c *Config) { c.DefaultReplicationFactor = 0 },
			`config: default.replication.factor="0": must be between 1 and 32767`},
		{"replication factor high", func(c *Config) { c.DefaultReplicationFactor = 40000 },
			`config: default.replication.factor="40000": must be between 1 and 32767`},
		{"max.broker.partitions", func(c *Config) { c.MaxBrokerPartitions = -1 },
			`config: max.broker.partitions="-1": must be at least 0`},
		{"max.partitions", func(c *Config) { c.MaxPartitions = -1 },
			`config: max.partitions="-1": must be at least 0`},
		{"error code", func(c *Config) { c.PartitionLimitsErrorCode = 87 },
			`config: partition.limits.error.code="87": must be 44 (POLICY_VIOLATION) or 88 (WILL_EXCEED_PARTITION_LIMITS)`},
		{"strategy", func(c *Config) { c.UncleanRecoveryStrategy = "Foo" },
			`config: unclean.recovery.strategy="Foo": must be one of None, Balanced, Aggressive`},
		{"strategy case in code", func(c *Config) { c.UncleanRecoveryStrategy = "balanced" },
			`config: unclean.recovery.strategy="balanced": must be one of None, Balanced, Aggressive`},
		{"recovery timeout", func(c *Config) { c.UncleanRecoveryTimeout = 0 },
			`config: unclean.recovery.timeout.ms="0": must be at least 1`},
		{"imbalance percentage", func(c *Config) { c.LeaderImbalancePerBrokerPercentage = 101 },
			`config: leader.imbalance.per.broker.percentage="101": must be between 0 and 100`},
		{"imbalance interval", func(c *Config) { c.LeaderImbalanceCheckInterval = 500 * time.Millisecond },
			`config: leader.imbalance.check.interval.seconds="0": must be at least 1`},
		{"socket timeout", func(c *Config) { c.ControllerSocketTimeout = 0 },
			`config: controller.socket.timeout.ms="0": must be at least 1`},
		{"request timeout", func(c *Config) { c.RequestTimeout = 0 },
			`config: request.timeout.ms="0": must be at least 1`},
		{"http listen", func(c *Config) { c.HTTPListen = "9644" },
			`config: kzadmin.http.listen="9644": must be host:port (empty host: every interface), or empty to disable`},
		{"http port", func(c *Config) { c.HTTPListen = "127.0.0.1:http" },
			`config: kzadmin.http.listen="127.0.0.1:http": port must be between 0 and 65535`},
		{"log level", func(c *Config) { c.LogLevel = "verbose" },
			`config: log.level="verbose": must be one of trace, debug, info, warn, error, fatal, panic, disabled`},
		{"log format", func(c *Config) { c.LogFormat = "text" },
			`config: log.format="text": must be one of json, console`},
		{"log format empty", func(c *Config) { c.LogFormat = "" },
			`config: log.format="": must be one of json, console`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.mutate(&c)
			err := c.Validate()
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Validate() =\n%v\nwant\n%s", err, tt.want)
			}
			var ve *ValueError
			if !errors.As(err, &ve) || !strings.HasPrefix(tt.want, "config: "+ve.Key+"=") {
				t.Errorf("errors.As gave %+v", ve)
			}
		})
	}
}

func TestValidateAcceptsEdgeValues(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
	}{
		{"limits zero", func(c *Config) { c.MaxPartitions, c.MaxBrokerPartitions = 0, 0 }},
		{"code 88", func(c *Config) { c.PartitionLimitsErrorCode = 88 }},
		{"http disabled", func(c *Config) { c.HTTPListen = "" }},
		{"http any host", func(c *Config) { c.HTTPListen = ":9644" }},
		{"percentage 0", func(c *Config) { c.LeaderImbalancePerBrokerPercentage = 0 }},
		{"rf 32767", func(c *Config) { c.DefaultReplicationFactor = 32767 }},
		{"chroot", func(c *Config) { c.ZooKeeper.Connect.Chroot = "/kafka/a" }},
		{"cluster id", func(c *Config) { c.ClusterID = "q2Lw-vH5T7KQ1l8gM0Xb_A" }},
		{"two listeners port 0", func(c *Config) {
			c.Listeners = []Listener{{"PLAINTEXT", "", 0}, {"B", "", 0}}
			c.ListenerSecurityProtocolMap = map[string]SecurityProtocol{"PLAINTEXT": ProtocolPlaintext, "B": ProtocolPlaintext}
		}},
		{"custom inter broker", func(c *Config) {
			c.Listeners = []Listener{{"CLIENT", "", 9092}, {"REPL", "", 9093}}
			c.AdvertisedListeners = []Listener{{"CLIENT", "c.example", 9092}, {"REPL", "r.example", 9093}}
			c.ListenerSecurityProtocolMap = map[string]SecurityProtocol{"CLIENT": ProtocolPlaintext, "REPL": ProtocolPlaintext}
			c.InterBrokerListenerName = "REPL"
		}},
		{"ssl mapped but unused", func(c *Config) { c.ListenerSecurityProtocolMap["EXTERNAL"] = ProtocolSSL }},
		{"oldest ibp", func(c *Config) { c.InterBrokerProtocolVersion = IBP0_8_0 }},
		{"strategy none", func(c *Config) { c.UncleanRecoveryStrategy = RecoveryNone }},
	}
	for _, tt := range tests {
		c := valid()
		c.ListenerSecurityProtocolMap = DefaultSecurityProtocolMap()
		tt.mutate(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// Every problem is reported at once, in key order.
func TestValidateReportsAll(t *testing.T) {
	c := valid()
	c.NumPartitions = 0
	c.NodeID = -1
	c.LogLevel = "x"
	err := c.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "node.id") ||
		!strings.Contains(lines[1], "num.partitions") || !strings.Contains(lines[2], "log.level") {
		t.Errorf("errors: %q", lines)
	}
}

func TestUncleanRecoveryStrategy(t *testing.T) {
	tests := []struct {
		in   string
		want UncleanRecoveryStrategy
		ok   bool
	}{
		{"None", RecoveryNone, true},
		{"none", RecoveryNone, true},
		{"BALANCED", RecoveryBalanced, true},
		{" aggressive ", RecoveryAggressive, true},
		{"Manual", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseUncleanRecoveryStrategy(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %v", tt.in, got, ok)
		}
	}
}

// TestSettingsSourcesAndSecrets: Settings reports each key's value and
// default, static when given (by the layer that set it, or by a value
// other than the default), and marks the secrets.
func TestSettingsSourcesAndSecrets(t *testing.T) {
	c := Default()
	c.NumPartitions = 6
	c.Props = map[string]string{"ssl.key.password": "s3cret"}
	byName := func(ss []Setting) map[string]Setting {
		m := map[string]Setting{}
		for _, s := range ss {
			m[s.Name] = s
		}
		return m
	}
	got := byName(c.Settings(nil))
	if s := got["num.partitions"]; s.Value != "6" || s.Default != "1" || !s.Static {
		t.Errorf("num.partitions: %+v", s)
	}
	if s := got["default.replication.factor"]; s.Static || s.Value != s.Default {
		t.Errorf("default.replication.factor: %+v", s)
	}
	if s := got["ssl.key.password"]; !s.Sensitive || !s.Static || s.Value != "s3cret" {
		t.Errorf("ssl.key.password: %+v", s)
	}
	if s := got["zookeeper.connect"]; s.Sensitive || s.Dynamic {
		t.Errorf("zookeeper.connect: %+v", s)
	}
	if s := got["max.partitions"]; !s.Dynamic {
		t.Errorf("max.partitions: %+v", s)
	}
	// A key set to its default in a file is static all the same.
	got = byName(c.Settings(map[string]Source{"default.replication.factor": SourceFile}))
	if s := got["default.replication.factor"]; !s.Static {
		t.Errorf("default.replication.factor from a file: %+v", s)
	}
	// A value other than the default was given somehow, whatever sources
	// says (kzadmind's dev mode sets some itself).
	if s := got["num.partitions"]; !s.Static {
		t.Errorf("num.partitions with no source: %+v", s)
	}
	if len(got) != len(Keys()) {
		t.Errorf("%d settings for %d keys", len(got), len(Keys()))
	}
}

// TestOverlayZooKeeperTLS: a --zk-tls-config-file's zookeeper.ssl.* keys
// (and zookeeper.clientCnxnSocket) are set and checked; its other keys
// are ignored and named, as Kafka's tools ignore them.
func TestOverlayZooKeeperTLS(t *testing.T) {
	base := Default()
	base.Props = map[string]string{"zookeeper.ssl.keystore.location": "/old.pem", ZooKeeperDigestKey: "ops:pw"}
	c, ignored, err := OverlayZooKeeperTLS(base, map[string]string{
		"zookeeper.ssl.client.enable":     "true",
		"zookeeper.clientCnxnSocket":      "org.apache.zookeeper.ClientCnxnSocketNetty",
		"zookeeper.ssl.keystore.location": "/new.pem",
		"zookeeper.set.acl":               "true",
		"max.partitions":                  "5",
	}, "zk-tls.properties")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ignored, []string{"max.partitions", "zookeeper.set.acl"}) {
		t.Errorf("ignored %q", ignored)
	}
	if c.Props["zookeeper.ssl.client.enable"] != "true" || c.Props["zookeeper.ssl.keystore.location"] != "/new.pem" ||
		c.Props[ZooKeeperDigestKey] != "ops:pw" || c.ZooKeeper.SetACL || c.MaxPartitions != base.MaxPartitions {
		t.Errorf("overlaid %+v", c)
	}
	if base.Props["zookeeper.ssl.keystore.location"] != "/old.pem" {
		t.Error("the overlay changed the config it was given")
	}
	_, _, err = OverlayZooKeeperTLS(base, map[string]string{"zookeeper.ssl.ocsp.enable": "true",
		"zookeeper.ssl.keystore.password": "x", "zookeeper.ssl.protocol": "SSLv3"}, "zk-tls.properties")
	want := `config: zookeeper.ssl.ocsp.enable="true": true is not supported (set by zk-tls.properties)` + "\n" +
		`config: zookeeper.ssl.protocol="SSLv3": must be one of TLSv1.2, TLSv1.3, TLS (set by zk-tls.properties)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
