package daemon

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/replicalog"
)

// TestReplicaLogProberDialsLikeTheBrokerChannels: the prober connects
// through the inter-broker dialer (TLS, SASL), over TCP, to the target's
// address, and reports the dialer's failure.
func TestReplicaLogProberDialsLikeTheBrokerChannels(t *testing.T) {
	refused := errors.New("handshake refused")
	var gotNetwork, gotAddr string
	dial := func(_ context.Context, network, addr string) (net.Conn, error) {
		gotNetwork, gotAddr = network, addr
		return nil, refused
	}
	p := replicaLogProber(config.Default(), dial)
	target := replicalog.Target{BrokerID: 7, Addr: "192.0.2.1:9092"}
	_, err := p.Probe(context.Background(), target, []replicalog.Partition{{Topic: "t", Index: 0}})
	if !errors.Is(err, refused) {
		t.Fatalf("Probe error %v, want the dialer's", err)
	}
	if gotNetwork != "tcp" || gotAddr != target.Addr {
		t.Fatalf("dialed %s %s, want tcp %s", gotNetwork, gotAddr, target.Addr)
	}
}

// TestProbeTimeout: a probe never outlives the recovery's own wait.
func TestProbeTimeout(t *testing.T) {
	for _, c := range []struct {
		recovery, want time.Duration
	}{
		{0, replicalog.DefaultRequestTimeout},
		{5 * time.Minute, replicalog.DefaultRequestTimeout},
		{2 * time.Second, 2 * time.Second},
	} {
		conf := config.Default()
		conf.UncleanRecoveryTimeout = c.recovery
		if got := probeTimeout(conf); got != c.want {
			t.Errorf("unclean.recovery.timeout.ms %v: probe timeout %v, want %v", c.recovery, got, c.want)
		}
	}
}
