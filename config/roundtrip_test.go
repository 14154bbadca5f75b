package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// nonDefault returns a valid Config in which every key differs from its
// default, so a round trip through text proves each key is read and written.
func nonDefault() Config {
	return Config{
		NodeID:    4242,
		ClusterID: "q2Lw-vH5T7KQ1l8gM0Xb_A",
		Dev:       true,
		ZooKeeper: ZooKeeper{
			Connect:             ZKConnect{Servers: []string{"zk1:2181", "zk2:2182", "[::1]:2183"}, Chroot: "/kafka/prod"},
			SessionTimeout:      6 * time.Second,
			ConnectionTimeout:   4 * time.Second,
			SetACL:              true,
			MaxInFlightRequests: 20,
		},
		Listeners: []Listener{{"CLIENT", "", 9192}, {"REPL", "10.0.0.5", 9193}, {"CTRL", "10.0.0.5", 9194}},
		AdvertisedListeners: []Listener{
			{"CLIENT", "ctl.example.com", 9192}, {"REPL", "10.0.0.5", 9193}, {"CTRL", "10.0.0.5", 9194},
		},
		ListenerSecurityProtocolMap: map[string]SecurityProtocol{
			"CLIENT": ProtocolPlaintext, "REPL": ProtocolPlaintext, "CTRL": ProtocolPlaintext},
		InterBrokerListenerName:    "REPL",
		ControlPlaneListenerName:   "CTRL",
		InterBrokerProtocolVersion: IBP2_8_IV1,
		DeleteTopicEnable:          false,
		AutoCreateTopicsEnable:     false,
		NumPartitions:              6,
		DefaultReplicationFactor:   3,
		InternalTopics: InternalTopics{
			OffsetsPartitions: 3, OffsetsReplicationFactor: 1, OffsetsSegmentBytes: 1 << 20,
			TransactionPartitions: 4, TransactionReplicationFactor: 2, TransactionMinISR: 1, TransactionSegmentBytes: 2 << 20,
		},
		MaxBrokerPartitions:                4000,
		MaxPartitions:                      200000,
		PartitionLimitsErrorCode:           ErrCodeSeedPartitionLimits,
		UncleanLeaderElectionEnable:        true,
		UncleanRecoveryStrategy:            RecoveryAggressive,
		UncleanRecoveryManagerEnabled:      true,
		WarmStandby:                        true,
		UncleanRecoveryTimeout:             90 * time.Second,
		EligibleLeaderReplicasEnable:       true,
		MinInsyncReplicas:                  2,
		AutoLeaderRebalanceEnable:          false,
		LeaderImbalancePerBrokerPercentage: 25,
		LeaderImbalanceCheckInterval:       time.Minute,
		ControllerSocketTimeout:            5 * time.Second,
		RequestTimeout:                     10 * time.Second,
		DelegationTokenMaxLifetime:         2 * time.Hour,
		DelegationTokenExpiryTime:          time.Hour,
		DelegationTokenExpiryCheckInterval: time.Minute,
		ControllerQuotaWindowNum:           7,
		ControllerQuotaWindowSize:          3 * time.Second,
		HTTPListen:                         "0.0.0.0:9700",
		LogLevel:                           "debug",
		LogFormat:                          "console",
		Props: map[string]string{
			"ssl.keystore.type":                               "PEM",
			"ssl.keystore.location":                           "/etc/kzadmin/server.pem",
			"ssl.keystore.key":                                "KEY",
			"ssl.keystore.certificate.chain":                  "CHAIN",
			"ssl.key.password":                                "pw",
			"ssl.keystore.password":                           "kpw",
			"ssl.truststore.password":                         "tpw",
			"ssl.truststore.type":                             "PEM",
			"ssl.truststore.location":                         "/etc/kzadmin/ca.pem",
			"ssl.truststore.certificates":                     "CAS",
			"ssl.client.auth":                                 "requested",
			"ssl.enabled.protocols":                           "TLSv1.3",
			"ssl.cipher.suites":                               "TLS_AES_128_GCM_SHA256",
			"ssl.principal.mapping.rules":                     "DEFAULT",
			"sasl.enabled.mechanisms":                         "SCRAM-SHA-512",
			"sasl.server.max.receive.size":                    "1024",
			"sasl.mechanism.inter.broker.protocol":            "SCRAM-SHA-256",
			"sasl.jaas.config":                                "JAAS",
			"ssl.endpoint.identification.algorithm":           "https",
			"connection.failed.authentication.delay.ms":       "250",
			"authorizer.class.name":                           "kafka.security.authorizer.AclAuthorizer",
			"super.users":                                     "User:admin",
			"allow.everyone.if.no.acl.found":                  "false",
			ZooKeeperDigestKey:                                "kzadmin:secret",
			DelegationTokenSecretKey:                          "token-secret",
			DelegationTokenMasterKey:                          "old-secret",
			"zookeeper.ssl.client.enable":                     "true",
			"zookeeper.clientCnxnSocket":                      "org.apache.zookeeper.ClientCnxnSocketNetty",
			"zookeeper.ssl.keystore.location":                 "/etc/kzadmin/zk-client.p12",
			"zookeeper.ssl.keystore.password":                 "zkpw",
			"zookeeper.ssl.keystore.type":                     "PKCS12",
			"zookeeper.ssl.truststore.location":               "/etc/kzadmin/zk-ca.jks",
			"zookeeper.ssl.truststore.password":               "zktpw",
			"zookeeper.ssl.truststore.type":                   "JKS",
			"zookeeper.ssl.protocol":                          "TLSv1.3",
			"zookeeper.ssl.enabled.protocols":                 "TLSv1.3",
			"zookeeper.ssl.cipher.suites":                     "TLS_AES_128_GCM_SHA256",
			"zookeeper.ssl.endpoint.identification.algorithm": "HTTPS",
			"zookeeper.ssl.crl.enable":                        "false",
			"zookeeper.ssl.ocsp.enable":                       "false",
			ZooKeeperJAASFileKey:                              "/etc/kafka/kafka_server_jaas.conf",
			"zookeeper.sasl.clientconfig":                     "Client",
			Krb5ConfKey:                                       "/etc/kafka/krb5.conf",
			"zookeeper.sasl.client.username":                  "zk",
			"sasl.kerberos.service.name":                      "kafka",
			"sasl.kerberos.principal.to.local.rules":          "DEFAULT",
			"zookeeper.sasl.client.canonicalize.hostname":     "false",
			"zookeeper.server.principal":                      "zookeeper/zk1@EXAMPLE.COM",
		},
	}
}

// TestRoundTripEveryKey writes every key of a non-default Config as a
// properties file, loads it, and expects the same Config back.
func TestRoundTripEveryKey(t *testing.T) {
	want := nonDefault()
	if err := want.Validate(); err != nil {
		t.Fatalf("fixture invalid: %v", err)
	}
	def := Default()
	var lines []string
	for _, s := range keySpecs() {
		v := s.get(want)
		if v == s.get(def) {
			t.Errorf("fixture leaves %s at its default %q", s.name, v)
		}
		lines = append(lines, s.name+"="+v)
	}
	l, err := Load(LoadOptions{File: writeFile(t, lines...)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Config, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", l.Config, want)
	}
	for k, src := range l.Sources {
		if src != SourceFile {
			t.Errorf("%s from %v", k, src)
		}
	}
	if l.UnknownKeys != nil {
		t.Errorf("unknown keys %q", l.UnknownKeys)
	}
}

// Setting a key to the text its own getter prints must not change Config,
// for the defaults and for the non-default fixture.
func TestSetOfGetIsIdentity(t *testing.T) {
	for _, base := range []Config{Default(), nonDefault()} {
		for _, s := range keySpecs() {
			c := base
			if err := s.set(&c, s.get(base)); err != nil {
				t.Errorf("%s: set(get()) = %v", s.name, err)
				continue
			}
			if !reflect.DeepEqual(c, base) {
				t.Errorf("%s: set(get()) changed the config: %q", s.name, s.get(c))
			}
		}
	}
}

// kafkaServerProperties is the ZooKeeper-mode config/server.properties that
// Kafka 3.x ships (comments shortened), plus the lines an operator commonly
// uncomments. kzadmin must read it and list Kafka's broker-only keys as
// unknown.
const kafkaServerProperties = `
############################# Server Basics #############################
# The id of the broker. This must be set to a unique integer for each broker.
broker.id=0

############################# Socket Server Settings #############################
#   FORMAT:
#     listeners = listener_name://host_name:port
#   EXAMPLE:
#     listeners = PLAINTEXT://your.host.name:9092
#listeners=PLAINTEXT://:9092
#advertised.listeners=PLAINTEXT://your.host.name:9092
#listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600

############################# Log Basics #############################
log.dirs=/tmp/kafka-logs
num.partitions=1
num.recovery.threads.per.data.dir=1

############################# Internal Topic Settings  #############################
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1

############################# Log Retention Policy #############################
log.retention.hours=168
#log.retention.bytes=1073741824
#log.segment.bytes=1073741824
log.retention.check.interval.ms=300000

############################# Zookeeper #############################
zookeeper.connect=localhost:2181
zookeeper.connection.timeout.ms=18000

############################# Group Coordinator Settings #############################
group.initial.rebalance.delay.ms=0
`

func TestLoadKafkaServerProperties(t *testing.T) {
	file := writeFile(t, strings.Split(kafkaServerProperties, "\n")...)
	l, err := Load(LoadOptions{File: file, Env: []string{"KZADMIN_NODE_ID=3000"}})
	if err != nil {
		t.Fatal(err)
	}
	wantUnknown := []string{
		"broker.id", "group.initial.rebalance.delay.ms", "log.dirs", "log.retention.check.interval.ms",
		"log.retention.hours", "num.io.threads", "num.network.threads", "num.recovery.threads.per.data.dir",
		"socket.receive.buffer.bytes", "socket.request.max.bytes", "socket.send.buffer.bytes",
	}
	if !reflect.DeepEqual(l.UnknownKeys, wantUnknown) {
		t.Errorf("unknown keys:\n got %q\nwant %q", l.UnknownKeys, wantUnknown)
	}
	c := l.Config
	if c.ZooKeeper.Connect.String() != "localhost:2181" || c.ZooKeeper.ConnectionTimeout != 18*time.Second ||
		c.NumPartitions != 1 || c.NodeID != 3000 || c.InternalTopics.OffsetsReplicationFactor != 1 ||
		c.InternalTopics.TransactionReplicationFactor != 1 || c.InternalTopics.TransactionMinISR != 1 {
		t.Errorf("config = %+v", c)
	}
	if l.Sources["zookeeper.connection.timeout.ms"] != SourceFile || l.Sources["node.id"] != SourceEnv {
		t.Errorf("sources = %v", l.Sources)
	}
}
