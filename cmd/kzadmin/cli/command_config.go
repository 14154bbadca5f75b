package cli

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security/clientconf"
	ksasl "github.com/kzadmin/kzadmin/security/sasl"
)

// commandConfigOptions reads --command-config, the client properties
// Kafka's tools take (security.protocol, ssl.*, sasl.mechanism,
// sasl.jaas.config), into the Kafka client's options.
func commandConfigOptions(path string) ([]kgo.Opt, error) {
	if path == "" {
		return nil, nil
	}
	props, err := config.ReadPropertiesFile(path)
	if err != nil {
		return nil, fmt.Errorf("--command-config: %w", err)
	}
	ac, err := clientconf.AdminClientSettings(func(key string) (string, bool) {
		v, ok := props[key]
		return v, ok
	})
	if err != nil {
		return nil, fmt.Errorf("--command-config %s: %w", path, err)
	}
	var opts []kgo.Opt
	if ac.TLS != nil {
		// kgo names each broker's host as the server name.
		opts = append(opts, kgo.DialTLSConfig(ac.TLS))
	}
	if c := ac.SASL; c != nil {
		switch c.Mechanism {
		case ksasl.MechanismPlain:
			opts = append(opts, kgo.SASL(plain.Auth{User: c.Username, Pass: c.Password}.AsMechanism()))
		case "SCRAM-SHA-256":
			opts = append(opts, kgo.SASL(scram.Auth{User: c.Username, Pass: c.Password, IsToken: ac.TokenAuth}.AsSha256Mechanism()))
		case "SCRAM-SHA-512":
			opts = append(opts, kgo.SASL(scram.Auth{User: c.Username, Pass: c.Password, IsToken: ac.TokenAuth}.AsSha512Mechanism()))
		case ksasl.GSSAPI:
			opts = append(opts, kgo.SASL(gssapiMechanism{cred: *c}))
		default: // AdminClientSettings checked the mechanism
			return nil, fmt.Errorf("--command-config %s: SASL mechanism %q is not supported", path, c.Mechanism)
		}
	}
	return opts, nil
}

// gssapiMechanism is GSSAPI (Kerberos) for the Kafka client, over this
// module's own exchange (security/sasl.GSSAPIClient), as kzadmind's
// connections to brokers run it.
type gssapiMechanism struct{ cred ksasl.ClientCredentials }

func (gssapiMechanism) Name() string { return ksasl.GSSAPI }

// Authenticate starts the exchange with the broker at addr (host:port),
// whose service principal is <service name>/<its host>.
func (m gssapiMechanism) Authenticate(ctx context.Context, addr string) (sasl.Session, []byte, error) {
	c := &ksasl.GSSAPIClient{Tickets: m.cred.Kerberos, Service: m.cred.ServiceName + "/" + ksasl.KafkaServiceHost(ctx, addr)}
	first, err := c.Start()
	if err != nil {
		return nil, nil, err
	}
	return gssapiSession{c}, first, nil
}

type gssapiSession struct{ c *ksasl.GSSAPIClient }

// Challenge takes the broker's token; the last client token is sent with
// done, and the broker's empty answer is read by the client.
func (s gssapiSession) Challenge(server []byte) (bool, []byte, error) {
	token, done, err := s.c.Next(server)
	return done, token, err
}
