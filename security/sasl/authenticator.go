package sasl

import (
	"fmt"
	"time"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/scram"
)

// Config configures a listener's SASL mechanisms.
type Config struct {
	// Mechanisms are sasl.enabled.mechanisms for the listener: any of
	// GSSAPI, PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512.
	Mechanisms []string
	// GSSAPI accepts Kerberos logins; required for GSSAPI.
	GSSAPI *GSSAPIAcceptor
	// PlainUsers maps user to password for PLAIN, as the user_<name>
	// options of the listener's PlainLoginModule (ParsePlainJAAS).
	PlainUsers map[string]string
	// SCRAM finds SCRAM credentials; ZKCredentials{ZK: client}.Lookup
	// reads them from /config/users. Required for SCRAM mechanisms.
	SCRAM scram.Lookup
	// Tokens finds delegation tokens for SCRAM's tokenauth; nil refuses
	// token authentication.
	Tokens scram.TokenLookup
	// MaxReceiveSize is sasl.server.max.receive.size; zero means 512 KiB.
	MaxReceiveSize int32
	// FailedAuthenticationDelay is
	// connection.failed.authentication.delay.ms; zero means 100ms,
	// negative none.
	FailedAuthenticationDelay time.Duration
}

// WireConfig checks c and returns the listener's wire.SASLConfig.
func (c Config) WireConfig() (*wire.SASLConfig, error) {
	if len(c.Mechanisms) == 0 {
		return nil, fmt.Errorf("sasl.enabled.mechanisms: none given")
	}
	seen := map[string]bool{}
	for _, m := range c.Mechanisms {
		if seen[m] {
			return nil, fmt.Errorf("sasl.enabled.mechanisms: %s listed twice", m)
		}
		seen[m] = true
		if m == GSSAPI {
			if c.GSSAPI == nil {
				return nil, fmt.Errorf("sasl.enabled.mechanisms: GSSAPI needs the listener's Kerberos login (Krb5LoginModule with keyTab and principal in its gssapi.sasl.jaas.config)")
			}
			continue
		}
		if m == MechanismPlain {
			if c.PlainUsers == nil {
				return nil, fmt.Errorf("sasl.enabled.mechanisms: PLAIN needs a user list (user_<name>=\"<password>\" in the listener's plain.sasl.jaas.config)")
			}
			continue
		}
		if _, ok := scram.MechanismByName(m); !ok {
			return nil, fmt.Errorf("sasl.enabled.mechanisms: %q is not supported (GSSAPI, PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)", m)
		}
		if c.SCRAM == nil {
			return nil, fmt.Errorf("sasl.enabled.mechanisms: %s needs a credential source", m)
		}
	}
	users, lookup, tokenLookup, kerberos := c.PlainUsers, c.SCRAM, c.Tokens, c.GSSAPI
	return &wire.SASLConfig{
		Mechanisms: append([]string(nil), c.Mechanisms...),
		Start: func(mechanism string) (wire.SASLExchange, error) {
			if mechanism == MechanismPlain {
				return newPlain(users), nil
			}
			if mechanism == GSSAPI {
				return kerberos.Start(), nil
			}
			m, ok := scram.MechanismByName(mechanism)
			if !ok {
				return nil, fmt.Errorf("mechanism %q is not enabled", mechanism)
			}
			return scramExchange{srv: scram.NewServer(m, lookup).WithTokens(tokenLookup)}, nil
		},
		MaxReceiveSize:            c.MaxReceiveSize,
		FailedAuthenticationDelay: c.FailedAuthenticationDelay,
	}, nil
}
