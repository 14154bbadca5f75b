package controller

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// dialLog records the addresses the controller's broker channels dial and
// refuses every connection: the test needs where, not what.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialLog) dial(_ context.Context, _, addr string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.addrs = append(d.addrs, addr)
	return nil, errors.New("refused by the test")
}

func (d *dialLog) dialled() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.addrs)
}

// TestControllerToBrokerListener: the controller connects to a broker on
// the endpoint of control.plane.listener.name when it is set, else on the
// inter-broker listener's, as Kafka's ControllerChannelManager does. The
// broker registers both listeners on different ports.
func TestControllerToBrokerListener(t *testing.T) {
	const plainAddr, controlAddr = "127.0.0.1:19092", "127.0.0.1:19093"
	tests := []struct {
		name, controlPlane, want string
	}{
		{"inter-broker listener", "", plainAddr},
		{"control plane", "CONTROL", controlAddr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chroot := testChroot(t)
			obs := connectZK(t, chroot, "", 0)
			registerBrokerEndpoints(t, obs, 1, []znodes.Endpoint{
				{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: 19092, SecurityProtocol: "PLAINTEXT"},
				{Listener: "CONTROL", Host: "127.0.0.1", Port: 19093, SecurityProtocol: "SASL_SSL"},
			})
			var dl dialLog
			n := startNode(t, chroot, nodeOpts{id: 100, dial: dl.dial, configure: func(c *config.Config) {
				c.ControlPlaneListenerName = tt.controlPlane
			}})
			waitFor(t, "controller ready", func() bool { return n.c.Status().Ready })
			waitFor(t, "a dial to broker 1", func() bool { return len(dl.dialled()) > 0 })
			for _, addr := range dl.dialled() {
				if addr != tt.want {
					t.Fatalf("dialled %s, want only %s", addr, tt.want)
				}
			}
		})
	}
}

// registerBrokerEndpoints registers broker id with the given endpoints, as
// a Kafka broker with several listeners does.
func registerBrokerEndpoints(t testing.TB, zk *zkadmin.Client, id int32, eps []znodes.Endpoint) {
	t.Helper()
	data, err := znodes.NewBrokerRegistration(eps, nil, -1, time.Now()).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.Create(testCtx(t), znodes.BrokerIDPath(id), data, zkadmin.Ephemeral); err != nil {
		t.Fatalf("register broker %d: %v", id, err)
	}
}
