package security

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/security/tlsconf"
)

// DialFunc opens an authenticated connection to a broker's listener. It
// has the shape of (*net.Dialer).DialContext, so it plugs into
// brokerchan.ManagerConfig.Dial (controller.Config.BrokerDial) as it is;
// Addr adapts it to replicalog's Dial hook.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Addr is d for dial hooks that take only an address (TCP).
func (d DialFunc) Addr() func(ctx context.Context, addr string) (net.Conn, error) {
	return func(ctx context.Context, addr string) (net.Conn, error) { return d(ctx, "tcp", addr) }
}

// ClientOptions say how kzadmind connects to brokers: the inter-broker
// listener's name and security protocol, as the brokers' registrations
// advertise it, and the properties holding the client settings.
type ClientOptions struct {
	// Listener names the listener the controller reaches brokers on:
	// control.plane.listener.name when set, else the inter-broker listener
	// (inter.broker.listener.name, or security.inter.broker.protocol's name).
	Listener string
	// Protocol is its security protocol: PLAINTEXT, SSL, SASL_PLAINTEXT
	// or SASL_SSL.
	Protocol string
	// Props gives the properties by Kafka name.
	Props Getter
	// ClientID is the client id of the SASL requests.
	ClientID string
}

// NewClientDialer builds the DialFunc a Kafka broker's controller uses
// for its inter-broker connections, from the same properties:
//
//	SSL, SASL_SSL   ssl.truststore.* (server verification), ssl.keystore.*
//	                (client certificate, when the brokers require one),
//	                ssl.endpoint.identification.algorithm (https, the
//	                default, checks the host name; empty does not),
//	                ssl.enabled.protocols, ssl.cipher.suites
//	SASL_*          sasl.mechanism.inter.broker.protocol (PLAIN,
//	                SCRAM-SHA-256 or SCRAM-SHA-512; Kafka's default GSSAPI
//	                is not offered), and the username and password of the
//	                listener's login module:
//	                listener.name.<l>.<mechanism>.sasl.jaas.config, else
//	                listener.name.<l>.sasl.jaas.config, else sasl.jaas.config
//
// Each key may be prefixed with listener.name.<listener>. as in Kafka.
// PLAINTEXT gives a plain TCP dialer.
func NewClientDialer(o ClientOptions) (DialFunc, error) {
	useTLS, useSASL, known := config.ProtocolLayers(o.Protocol)
	if !known {
		return nil, fmt.Errorf("controller-to-broker listener %s: unknown security protocol %q", o.Listener, o.Protocol)
	}
	var tcfg *tls.Config
	if useTLS {
		s := tlsconf.SettingsFromProperties(o.Props, o.Listener, false)
		alg, set := tlsconf.ListenerValue(o.Props, o.Listener, "ssl.endpoint.identification.algorithm")
		verifyHost := !set || strings.EqualFold(strings.TrimSpace(alg), "https")
		var err error
		if tcfg, err = s.ClientConfig(verifyHost); err != nil {
			return nil, fmt.Errorf("controller-to-broker listener %s: %w", o.Listener, err)
		}
	}
	var cred *sasl.ClientCredentials
	if useSASL {
		c, err := interBrokerCredentials(o)
		if err != nil {
			return nil, fmt.Errorf("controller-to-broker listener %s: %w", o.Listener, err)
		}
		cred = &c
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil || (tcfg == nil && cred == nil) {
			return nc, err
		}
		if tcfg != nil {
			if nc, err = tlsHandshake(ctx, nc, tcfg, addr); err != nil {
				return nil, err
			}
		}
		if cred != nil {
			c := *cred
			if c.Mechanism == sasl.GSSAPI {
				c.ServerHost = sasl.KafkaServiceHost(ctx, addr)
			}
			if err := sasl.Authenticate(ctx, nc, c, o.ClientID); err != nil {
				nc.Close()
				return nil, fmt.Errorf("authenticate to %s: %w", addr, err)
			}
		}
		return nc, nil
	}, nil
}

func tlsHandshake(ctx context.Context, nc net.Conn, base *tls.Config, addr string) (net.Conn, error) {
	cfg := base.Clone()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		cfg.ServerName = host
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
	}
	return tc, nil
}

// interBrokerCredentials reads the mechanism and the login module's
// username and password.
func interBrokerCredentials(o ClientOptions) (sasl.ClientCredentials, error) {
	mech, _ := o.Props("sasl.mechanism.inter.broker.protocol")
	if mech = strings.TrimSpace(mech); mech == "" {
		mech = sasl.GSSAPI // Kafka's default
	}
	if mech == sasl.GSSAPI {
		return gssapiClient(o.Props, o.Listener)
	}
	prefix := "listener.name." + strings.ToLower(o.Listener) + "."
	var jaas, key string
	for _, k := range []string{prefix + strings.ToLower(mech) + ".sasl.jaas.config", prefix + "sasl.jaas.config", "sasl.jaas.config"} {
		if v, ok := o.Props(k); ok && strings.TrimSpace(v) != "" {
			jaas, key = v, k
			break
		}
	}
	if jaas == "" {
		return sasl.ClientCredentials{}, fmt.Errorf("SASL %s needs the login module with username and password in %s%s.sasl.jaas.config",
			mech, prefix, strings.ToLower(mech))
	}
	c, err := sasl.ClientCredentialsFromJAAS(mech, jaas)
	if err != nil {
		return c, fmt.Errorf("%s: %w", key, err)
	}
	if err := c.Check(); err != nil {
		return c, fmt.Errorf("%s: %w", key, err)
	}
	return c, nil
}
