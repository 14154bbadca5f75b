package daemon

import (
	"context"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestDevModeStartsEverything runs what `kzadmind --dev` runs: a local
// ZooKeeper, the controller, three simulated brokers, the Kafka listener
// and the HTTP endpoints, then stops it all.
func TestDevModeStartsEverything(t *testing.T) {
	ctx := context.Background()
	conf := config.Default()
	conf.Dev = true
	conf.NodeID = config.DevNodeID
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = "127.0.0.1:0"
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)

	d, err := Start(ctx, conf, Options{}, log)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = d.Stop(context.Background())
		}
	})

	deadline := time.Now().Add(60 * time.Second)
	for {
		code, body := get(t, "http://"+d.HTTPAddr()+"/readyz")
		st := d.Controller().Snapshot()
		if code == http.StatusOK && st != nil && len(st.Brokers) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready with 3 brokers: /readyz %d %q", code, body)
		}
		time.Sleep(50 * time.Millisecond) // poll interval for a condition with a deadline
	}
	if code, body := get(t, "http://"+d.HTTPAddr()+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz = %d %q", code, body)
	}
	_, metrics := get(t, "http://"+d.HTTPAddr()+"/metrics")
	if !strings.Contains(metrics, "kafka_controller_KafkaController_ActiveControllerCount 1") {
		t.Fatalf("metrics lack ActiveControllerCount 1:\n%s", metrics)
	}

	createTopicWithKadm(t, d.KafkaAddr())
	configsThroughSimulatedBrokers(t, d.KafkaAddr())

	stopCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	stopped = true
	if err := d.Stop(stopCtx); err != nil {
		t.Fatalf("stop: %v", err)
	}
}

// devClient returns a franz-go client of addr, closed when the test ends,
// and a context for its requests that ends a minute from now.
func devClient(t *testing.T, addr string) (context.Context, *kgo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return ctx, cl
}

// createTopicWithKadm creates a topic through the admin wire API, as a
// client of `kzadmind --dev` would, and waits until every partition has a
// leader in Metadata.
func createTopicWithKadm(t *testing.T, addr string) {
	t.Helper()
	ctx, cl := devClient(t, addr)
	adm := kadm.NewClient(cl)
	res, err := adm.CreateTopic(ctx, 6, 3, map[string]*string{"retention.ms": kadm.StringPtr("60000")}, "dev-topic")
	if err != nil || res.Err != nil {
		t.Fatalf("create topic: %v / %v", err, res.Err)
	}
	for {
		td, err := adm.ListTopics(ctx, "dev-topic")
		if err == nil {
			d := td["dev-topic"]
			led := 0
			for _, p := range d.Partitions {
				if p.Leader >= 0 && len(p.ISR) == 3 {
					led++
				}
			}
			if d.Err == nil && led == 6 {
				return
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("dev-topic partitions did not all get a leader and a full ISR: %v %+v", err, td)
		}
		time.Sleep(50 * time.Millisecond) // poll interval for a condition with a deadline
	}
}

// configsThroughSimulatedBrokers checks that each simulated broker answers
// the APIs an admin client may send to any broker of a ZooKeeper-mode
// cluster (the configs APIs and DescribeCluster) through kzadmind's
// handlers, for its own id, and advertises none of the controller's.
func configsThroughSimulatedBrokers(t *testing.T, addr string) {
	t.Helper()
	ctx, cl := devClient(t, addr)
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err != nil {
		t.Fatal(err)
	}
	for id := int32(1); id <= 3; id++ {
		broker := cl.Broker(int(id))
		av := kmsg.NewPtrApiVersionsRequest()
		av.Version, av.ClientSoftwareName, av.ClientSoftwareVersion = 3, "test", "1"
		avResp, err := av.RequestWith(ctx, broker)
		if err != nil {
			t.Fatalf("ApiVersions of broker %d: %v", id, err)
		}
		keys := map[int16]bool{}
		for _, k := range avResp.ApiKeys {
			keys[k.ApiKey] = true
		}
		for _, k := range []kmsg.Key{kmsg.DescribeConfigs, kmsg.AlterConfigs, kmsg.IncrementalAlterConfigs, kmsg.DescribeCluster, kmsg.Metadata,
			kmsg.DescribeACLs, kmsg.CreateACLs, kmsg.DeleteACLs} {
			if !keys[k.Int16()] {
				t.Errorf("broker %d does not advertise %s", id, kmsg.NameForKey(k.Int16()))
			}
		}
		for _, k := range []kmsg.Key{kmsg.CreateTopics, kmsg.DeleteTopics, kmsg.DescribeTopicPartitions} {
			if keys[k.Int16()] {
				t.Errorf("broker %d advertises %s, which a ZooKeeper-mode broker leaves to the controller or lacks", id, kmsg.NameForKey(k.Int16()))
			}
		}

		// No authorizer in this dev mode: the ACL APIs say so, as Kafka's.
		acls := kmsg.NewPtrDescribeACLsRequest()
		acls.ResourceType, acls.ResourcePatternType, acls.Operation, acls.PermissionType = 1, 1, 1, 1
		if aclsResp, err := acls.RequestWith(ctx, broker); err != nil || aclsResp.ErrorCode != kerr.SecurityDisabled.Code {
			t.Errorf("broker %d: DescribeAcls: %v %+v, want SECURITY_DISABLED", id, err, aclsResp)
		}

		name := strconv.Itoa(int(id))
		alter := kmsg.NewPtrIncrementalAlterConfigsRequest()
		res := kmsg.NewIncrementalAlterConfigsRequestResource()
		res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeBroker, name
		op := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		op.Name, op.Op, op.Value = "log.cleaner.threads", kmsg.IncrementalAlterConfigOpSet, kmsg.StringPtr(name)
		res.Configs = append(res.Configs, op)
		alter.Resources = append(alter.Resources, res)
		alterResp, err := alter.RequestWith(ctx, broker)
		if err != nil || len(alterResp.Resources) != 1 || alterResp.Resources[0].ErrorCode != 0 {
			t.Fatalf("broker %d: alter its own configs: %v %+v", id, err, alterResp)
		}

		describe := kmsg.NewPtrDescribeConfigsRequest()
		for _, r := range []struct {
			typ  kmsg.ConfigResourceType
			name string
		}{{kmsg.ConfigResourceTypeBroker, name}, {kmsg.ConfigResourceTypeTopic, "dev-topic"}} {
			dr := kmsg.NewDescribeConfigsRequestResource()
			dr.ResourceType, dr.ResourceName = r.typ, r.name
			describe.Resources = append(describe.Resources, dr)
		}
		descResp, err := describe.RequestWith(ctx, broker)
		if err != nil || len(descResp.Resources) != 2 {
			t.Fatalf("broker %d: describe configs: %v %+v", id, err, descResp)
		}
		got := map[string]string{}
		for _, r := range descResp.Resources {
			if r.ErrorCode != 0 {
				t.Fatalf("broker %d: describe %s: error %d %v", id, r.ResourceName, r.ErrorCode, r.ErrorMessage)
			}
			for _, c := range r.Configs {
				if c.Value != nil && (c.Name == "log.cleaner.threads" || c.Name == "retention.ms") {
					got[r.ResourceName+"/"+c.Name] = *c.Value
				}
			}
		}
		want := map[string]string{name + "/log.cleaner.threads": name, "dev-topic/retention.ms": "60000"}
		if !maps.Equal(got, want) {
			t.Errorf("broker %d describes %v, want %v", id, got, want)
		}
	}
}

// TestSetACLNeedsAnIdentity: kzadmind with zookeeper.set.acl=true and no
// identity (no digest, no TLS client certificate) refuses to start, as
// Kafka's brokers do, before it connects to ZooKeeper (the address here
// serves nothing), instead of failing at its first create.
func TestSetACLNeedsAnIdentity(t *testing.T) {
	conf := config.Default()
	conf.NodeID = 3000
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{"127.0.0.1:1"}}
	conf.ZooKeeper.SetACL = true
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = ""
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := Start(ctx, conf, Options{}, zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel))
	if err == nil {
		_ = d.Stop(context.Background())
		t.Fatal("kzadmind started with zookeeper.set.acl=true and no identity")
	}
	if !strings.Contains(err.Error(), "zookeeper.set.acl=true needs an identity") || ctx.Err() != nil {
		t.Fatalf("got %v (context: %v)", err, ctx.Err())
	}
}
