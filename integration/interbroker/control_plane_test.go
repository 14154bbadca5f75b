package interbroker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/zkserver"
)

// TestControlPlaneListener runs kzadmind as the controller of a real Kafka
// 3.9 broker with control.plane.listener.name=CONTROL, a SASL_SSL
// listener, next to a PLAINTEXT inter-broker listener. kzadmind has the
// same setting, so it sends LeaderAndIsr and UpdateMetadata on CONTROL
// with TLS and SCRAM, as Kafka's controller does; the PLAINTEXT endpoint
// would refuse the TLS handshake and the CONTROL endpoint a plain
// connection, so a topic that gets a leader proves the choice of both
// endpoint and protocol. kzadmind listens on CONTROL too (Kafka requires
// the control-plane listener among the advertised ones), which is where
// the broker looks for its controller.
func TestControlPlaneListener(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl := startZooKeeper(ctx, t)
	putSCRAM(ctx, t, cl.zk, brokerUser, brokerPass)
	p := newPKI(t)
	conf := loadConfig(t, cl.zks.Addr(),
		"listeners=PLAINTEXT://127.0.0.1:0,CONTROL://127.0.0.1:0",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROL:SASL_SSL",
		"control.plane.listener.name=CONTROL",
		"listener.name.control.sasl.enabled.mechanisms=SCRAM-SHA-512",
		"sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512",
		"listener.name.control.scram-sha-512.sasl.jaas.config="+scramJAAS,
		"listener.name.control.ssl.keystore.type=PEM",
		"listener.name.control.ssl.keystore.location="+p.kzadmind.Keystore,
		"listener.name.control.ssl.truststore.type=PEM",
		"listener.name.control.ssl.truststore.location="+p.kzadmind.Truststore,
	)
	d := runDaemon(ctx, t, conf)

	ports, err := zkserver.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	b := startBroker(ctx, t, cl.zks.Addr(), ports[0], map[string]string{
		"listeners":                                            fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROL://127.0.0.1:%d", ports[0], ports[1]),
		"listener.security.protocol.map":                       "PLAINTEXT:PLAINTEXT,CONTROL:SASL_SSL",
		"control.plane.listener.name":                          "CONTROL",
		"listener.name.control.sasl.enabled.mechanisms":        "SCRAM-SHA-512",
		"sasl.mechanism.inter.broker.protocol":                 "SCRAM-SHA-512",
		"listener.name.control.scram-sha-512.sasl.jaas.config": scramJAAS,
		"listener.name.control.ssl.keystore.type":              "PEM",
		"listener.name.control.ssl.keystore.location":          p.broker.Keystore,
		"listener.name.control.ssl.truststore.type":            "PEM",
		"listener.name.control.ssl.truststore.location":        p.broker.Truststore,
	})
	waitBrokers(ctx, t, d, 1)

	adm := kadmClient(t, d.ListenerAddr("PLAINTEXT"))
	res, err := adm.CreateTopic(ctx, 2, 1, nil, "control-plane")
	if err != nil || res.Err != nil {
		t.Fatalf("create topic: %v / %v", err, res.Err)
	}
	produceConsume(ctx, t, b.Addr(), "control-plane", 10)
}
