package cli

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
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
		default: // AdminClientSettings checked the mechanism
			return nil, fmt.Errorf("--command-config %s: SASL mechanism %q is not supported", path, c.Mechanism)
		}
	}
	return opts, nil
}
