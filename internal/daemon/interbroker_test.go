package daemon

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/internal/testpki"
)

// tlsServer accepts TLS connections with a testpki leaf and completes
// their handshakes; it returns its address and the CA's PEM file.
func tlsServer(t *testing.T) (addr, truststore string) {
	t.Helper()
	ca, err := testpki.NewCA("interbroker-ca")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(testpki.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := leaf.TLS()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	ts, err := testpki.WriteFile(t.TempDir(), "ca.pem", ca.PEM())
	if err != nil {
		t.Fatal(err)
	}
	return ln.Addr().String(), ts
}

// interBrokerConf has a PLAINTEXT inter-broker listener and an SSL
// listener CONTROL whose truststore is the listener-prefixed key.
func interBrokerConf(truststore, controlPlane string) config.Config {
	c := config.Default()
	c.NodeID = 3000
	c.ZooKeeper.Connect = config.ZKConnect{Servers: []string{"127.0.0.1:2181"}}
	c.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1"}, {Name: "CONTROL", Host: "127.0.0.1", Port: 1}}
	c.ListenerSecurityProtocolMap = map[string]config.SecurityProtocol{"PLAINTEXT": "PLAINTEXT", "CONTROL": "SSL"}
	c.ControlPlaneListenerName = controlPlane
	c.Props = map[string]string{
		"listener.name.control.ssl.truststore.type":     "PEM",
		"listener.name.control.ssl.truststore.location": truststore,
	}
	return c
}

// TestBrokerDialerUsesControlPlaneListener: with control.plane.listener.name
// the controller's connections take that listener's protocol (here SSL,
// with its listener-prefixed truststore); without it they take the
// inter-broker listener's (PLAINTEXT: no TLS).
func TestBrokerDialerUsesControlPlaneListener(t *testing.T) {
	addr, ts := tlsServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tt := range []struct {
		controlPlane string
		wantTLS      bool
	}{{"", false}, {"CONTROL", true}} {
		conf := interBrokerConf(ts, tt.controlPlane)
		if err := conf.Validate(); err != nil {
			t.Fatalf("control plane %q: config refused: %v", tt.controlPlane, err)
		}
		dial, err := brokerDialer(conf)
		if err != nil {
			t.Fatalf("control plane %q: %v", tt.controlPlane, err)
		}
		nc, err := dial(ctx, "tcp", addr)
		if err != nil {
			t.Fatalf("control plane %q: dial: %v", tt.controlPlane, err)
		}
		_, isTLS := nc.(*tls.Conn)
		nc.Close()
		if isTLS != tt.wantTLS {
			t.Errorf("control plane %q: TLS connection %v, want %v", tt.controlPlane, isTLS, tt.wantTLS)
		}
	}
}

// TestBrokerDialerControlPlaneSettingsChecked: a SASL control plane
// without sasl.mechanism.inter.broker.protocol fails start-up, naming
// the control-plane listener.
func TestBrokerDialerControlPlaneSettingsChecked(t *testing.T) {
	conf := interBrokerConf("/nonexistent", "CONTROL")
	conf.ListenerSecurityProtocolMap["CONTROL"] = "SASL_PLAINTEXT"
	_, err := brokerDialer(conf)
	if err == nil || !strings.Contains(err.Error(), "CONTROL") {
		t.Fatalf("err = %v, want one naming listener CONTROL", err)
	}
}
