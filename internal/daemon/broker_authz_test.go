package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/acl"
)

// brokerAPIs sends each guarded broker API once and returns its error
// code. The requests are harmless when allowed: an empty AlterPartition,
// and a ControlledShutdown and AllocateProducerIds for a broker that does
// not exist.
func brokerAPIs(ctx context.Context, t *testing.T, send func(kmsg.Request) kmsg.Response) map[string]int16 {
	t.Helper()
	ap := kmsg.NewPtrAlterPartitionRequest()
	ap.BrokerID, ap.BrokerEpoch = 999, 1
	cs := kmsg.NewPtrControlledShutdownRequest()
	cs.BrokerID, cs.BrokerEpoch = 999, 1
	apid := kmsg.NewPtrAllocateProducerIDsRequest()
	apid.BrokerID, apid.BrokerEpoch = 999, 1
	idem := kmsg.NewPtrInitProducerIDRequest()
	txn := kmsg.NewPtrInitProducerIDRequest()
	txn.TransactionalID = kmsg.StringPtr("tx-1")
	out := map[string]int16{}
	out["AlterPartition"] = send(ap).(*kmsg.AlterPartitionResponse).ErrorCode
	out["ControlledShutdown"] = send(cs).(*kmsg.ControlledShutdownResponse).ErrorCode
	out["AllocateProducerIds"] = send(apid).(*kmsg.AllocateProducerIDsResponse).ErrorCode
	r := send(idem).(*kmsg.InitProducerIDResponse)
	out["InitProducerId"] = r.ErrorCode
	if r.ErrorCode != 0 && (r.ProducerID != -1 || r.ProducerEpoch != -1) {
		t.Errorf("InitProducerId error %d with producer id %d epoch %d, want -1/-1", r.ErrorCode, r.ProducerID, r.ProducerEpoch)
	}
	out["InitProducerId txn"] = send(txn).(*kmsg.InitProducerIDResponse).ErrorCode
	return out
}

// TestBrokerAPIsNeedClusterAction runs kzadmind with Kafka's ACL
// authorizer and checks, per broker→controller API, that a principal
// without ClusterAction is refused with CLUSTER_AUTHORIZATION_FAILED in
// the top-level error, and that one with it gets through; InitProducerId
// takes IdempotentWrite on the Cluster or Write on any topic (KIP-679),
// and Write on the TransactionalId when it names one. The simulated
// brokers reach the controller on PLAINTEXT as User:ANONYMOUS, which is
// therefore a super user here, as it must be in a Kafka cluster whose
// inter-broker listener is PLAINTEXT.
func TestBrokerAPIsNeedClusterAction(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	conf := devConf("PLAINTEXT", "SASL_PLAINTEXT")
	conf.Props = map[string]string{
		"sasl.enabled.mechanisms": "PLAIN",
		"listener.name.sasl_plaintext.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required ` +
			`user_alice="pw" user_broker="pw" user_producer="pw" user_txn="pw";`,
		"connection.failed.authentication.delay.ms": "0",
		"authorizer.class.name":                     "kafka.security.authorizer.AclAuthorizer",
		"super.users":                               "User:ANONYMOUS",
	}
	d := startDev(ctx, t, conf)
	cluster := acl.Pattern{Type: acl.ResourceCluster, Name: acl.ClusterName, PatternType: acl.PatternLiteral}
	err := acl.NewStore(d.zk).Add(ctx, []acl.Binding{
		{Pattern: cluster, Entry: acl.Entry{Principal: "User:broker", Host: "*", Operation: acl.OpClusterAction, Permission: acl.PermissionAllow}},
		{Pattern: cluster, Entry: acl.Entry{Principal: "User:broker", Host: "*", Operation: acl.OpIdempotentWrite, Permission: acl.PermissionAllow}},
		{Pattern: acl.Pattern{Type: acl.ResourceTopic, Name: "orders-", PatternType: acl.PatternPrefixed},
			Entry: acl.Entry{Principal: "User:producer", Host: "*", Operation: acl.OpWrite, Permission: acl.PermissionAllow}},
		{Pattern: acl.Pattern{Type: acl.ResourceTransactionalID, Name: "tx-1", PatternType: acl.PatternLiteral},
			Entry: acl.Entry{Principal: "User:txn", Host: "*", Operation: acl.OpWrite, Permission: acl.PermissionAllow}},
	})
	if err != nil {
		t.Fatal(err)
	}

	const denied, txnDenied = 31, 53    // CLUSTER_ / TRANSACTIONAL_ID_AUTHORIZATION_FAILED
	want := map[string]map[string]bool{ // user -> API -> allowed
		"alice":     {},
		"broker":    {"AlterPartition": true, "ControlledShutdown": true, "AllocateProducerIds": true, "InitProducerId": true},
		"producer":  {"InitProducerId": true},
		"txn":       {"InitProducerId txn": true},
		"ANONYMOUS": {"AlterPartition": true, "ControlledShutdown": true, "AllocateProducerIds": true, "InitProducerId": true, "InitProducerId txn": true},
	}
	for user, allowed := range want {
		t.Run(user, func(t *testing.T) {
			addr, opts := d.ListenerAddr("SASL_PLAINTEXT"), []kgo.Opt{kgo.SASL(plain.Auth{User: user, Pass: "pw"}.AsMechanism())}
			if user == "ANONYMOUS" {
				addr, opts = d.ListenerAddr("PLAINTEXT"), nil
			}
			send := controllerSender(ctx, t, addr, conf.NodeID, opts...)
			// The ACLs reach the authorizer through ZooKeeper's change
			// notifications: wait until the first allowed API passes.
			var got map[string]int16
			deadline := time.Now().Add(30 * time.Second)
			for {
				got = brokerAPIs(ctx, t, send)
				settled := true
				for api := range allowed {
					settled = settled && got[api] != denied && got[api] != txnDenied
				}
				if settled || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond) // poll interval for a condition with a deadline
			}
			t.Logf("error codes: %v", got)
			for api, code := range got {
				wantCode := int16(denied)
				if api == "InitProducerId txn" {
					wantCode = txnDenied
				}
				if allowed[api] && code == wantCode {
					t.Errorf("%s: %v, want allowed", api, kerr.ErrorForCode(code))
				}
				if !allowed[api] && code != wantCode {
					t.Errorf("%s: code %d, want %v", api, code, kerr.ErrorForCode(wantCode))
				}
			}
			if allowed["InitProducerId"] && got["InitProducerId"] != 0 {
				t.Errorf("InitProducerId: %v, want a producer id", kerr.ErrorForCode(got["InitProducerId"]))
			}
		})
	}
}

// controllerSender sends requests straight to the controller node (it
// lists itself among the brokers) through a kgo client.
func controllerSender(ctx context.Context, t *testing.T, addr string, nodeID int32, opts ...kgo.Opt) func(kmsg.Request) kmsg.Response {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.RequestRetries(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err != nil {
		t.Fatalf("metadata: %v", err)
	}
	return func(req kmsg.Request) kmsg.Response {
		resp, err := cl.Broker(int(nodeID)).Request(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", kmsg.NameForKey(req.Key()), err)
		}
		return resp
	}
}

// TestGuardBrokerRoutesRefusesUnknownKeys: a broker route without a rule
// is an error, and no authorizer leaves the routes untouched.
func TestGuardBrokerRoutesRefusesUnknownKeys(t *testing.T) {
	h := wire.HandlerFunc(func(context.Context, *wire.Request) (kmsg.Response, error) { return nil, nil })
	routes := []wire.Route{{VersionRange: wire.VersionRange{Key: 1, Min: 0, Max: 0}, Handler: h}}
	if _, err := guardBrokerRoutes(routes, handler.AllowAll{}); err == nil {
		t.Fatal("Fetch guarded without a rule")
	}
	if got, err := guardBrokerRoutes(routes, nil); err != nil || len(got) != 1 {
		t.Fatalf("no authorizer: %v %v", got, err)
	}
}
