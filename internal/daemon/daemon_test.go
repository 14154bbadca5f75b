package daemon

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

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

	stopCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	stopped = true
	if err := d.Stop(stopCtx); err != nil {
		t.Fatalf("stop: %v", err)
	}
}
