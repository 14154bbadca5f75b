package security

import (
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/security/tlsconf"
)

// Getter returns a property by its Kafka name.
type Getter = tlsconf.Getter

// MapGetter reads properties from a map.
func MapGetter(m map[string]string) Getter {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// ListenerOptions say which listener to secure and how to find what it
// needs.
type ListenerOptions struct {
	// Name is the listener name ("SASL_SSL", "INTERNAL", ...).
	Name string
	// Protocol is its security protocol: PLAINTEXT, SSL, SASL_PLAINTEXT
	// or SASL_SSL.
	Protocol string
	// Props gives the configuration properties by Kafka name.
	Props Getter
	// SCRAM finds SCRAM credentials, typically
	// sasl.ZKCredentials{ZK: client}.Lookup. Needed when a SCRAM
	// mechanism is enabled.
	SCRAM scram.Lookup
	// Tokens finds delegation tokens for SCRAM's tokenauth, typically
	// sasl.ZKTokens{...}.Lookup; nil when tokens are off.
	Tokens scram.TokenLookup
}

// Listener is one listener's security, in wire.Config's terms.
type Listener struct {
	TLS          *tls.Config
	TLSPrincipal func(tls.ConnectionState) (wire.Principal, error)
	SASL         *wire.SASLConfig
}

// Apply sets cfg's TLS, TLSPrincipal and SASL.
func (l Listener) Apply(cfg *wire.Config) {
	cfg.TLS, cfg.TLSPrincipal, cfg.SASL = l.TLS, l.TLSPrincipal, l.SASL
}

// NewListener builds a listener's security from the properties.
func NewListener(o ListenerOptions) (Listener, error) {
	var l Listener
	useTLS, useSASL, known := config.ProtocolLayers(o.Protocol)
	if !known {
		return l, fmt.Errorf("listener %s: unknown security protocol %q", o.Name, o.Protocol)
	}
	if useTLS {
		s := tlsconf.SettingsFromProperties(o.Props, o.Name, useSASL)
		var err error
		if l.TLS, err = s.ServerConfig(); err != nil {
			return l, fmt.Errorf("listener %s: %w", o.Name, err)
		}
		if l.TLSPrincipal, err = s.PrincipalBuilder(); err != nil {
			return l, fmt.Errorf("listener %s: %w", o.Name, err)
		}
	}
	if useSASL {
		c, err := saslConfig(o)
		if err != nil {
			return l, fmt.Errorf("listener %s: %w", o.Name, err)
		}
		if l.SASL, err = c.WireConfig(); err != nil {
			return l, fmt.Errorf("listener %s: %w", o.Name, err)
		}
	}
	return l, nil
}

func saslConfig(o ListenerOptions) (sasl.Config, error) {
	var c sasl.Config
	mechs, ok := tlsconf.ListenerValue(o.Props, o.Name, "sasl.enabled.mechanisms")
	if !ok {
		mechs = sasl.GSSAPI // Kafka's default
	}
	c.Mechanisms = tlsconf.List(mechs)
	for _, m := range c.Mechanisms {
		switch {
		case m == sasl.GSSAPI:
			a, err := gssapiAcceptor(o.Props, o.Name)
			if err != nil {
				return c, fmt.Errorf("sasl.enabled.mechanisms=%s: %w", mechs, err)
			}
			c.GSSAPI = a
		case m == sasl.MechanismPlain:
			key := "listener.name." + strings.ToLower(o.Name) + ".plain.sasl.jaas.config"
			jaas, ok := o.Props(key)
			if !ok {
				return c, fmt.Errorf("PLAIN needs %s with the user list", key)
			}
			users, err := sasl.ParsePlainUsers(jaas)
			if err != nil {
				return c, fmt.Errorf("%s: %w", key, err)
			}
			c.PlainUsers = users
		case strings.HasPrefix(m, "SCRAM-"):
			c.SCRAM, c.Tokens = o.SCRAM, o.Tokens
		}
	}
	if v, ok := tlsconf.ListenerValue(o.Props, o.Name, "sasl.server.max.receive.size"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil || n <= 0 {
			return c, fmt.Errorf("sasl.server.max.receive.size=%q: want a positive number", v)
		}
		c.MaxReceiveSize = int32(n)
	}
	if v, ok := o.Props("connection.failed.authentication.delay.ms"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return c, fmt.Errorf("connection.failed.authentication.delay.ms=%q: want a number >= 0", v)
		}
		c.FailedAuthenticationDelay = time.Duration(n) * time.Millisecond
		if n == 0 {
			c.FailedAuthenticationDelay = -1 // none, which wire spells negative
		}
	}
	return c, nil
}
