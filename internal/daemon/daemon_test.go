package daemon

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

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

	stopCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	stopped = true
	if err := d.Stop(stopCtx); err != nil {
		t.Fatalf("stop: %v", err)
	}
}

// createTopicWithKadm creates a topic through the admin wire API, as a
// client of `kzadmind --dev` would, and waits until every partition has a
// leader in Metadata.
func createTopicWithKadm(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
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
