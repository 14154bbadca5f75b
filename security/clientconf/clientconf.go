// Package clientconf reads how an admin tool connects to a Kafka cluster
// from the client properties Kafka's tools take with --command-config.
package clientconf

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/security/tlsconf"
)

// AdminClient says how an admin tool connects to a cluster, read from the
// client properties Kafka's tools take with --command-config.
type AdminClient struct {
	// Protocol is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
	Protocol string
	// TLS is set for SSL and SASL_SSL.
	TLS *tls.Config
	// SASL is set for SASL_PLAINTEXT and SASL_SSL.
	SASL *sasl.ClientCredentials
	// TokenAuth says SASL's username and password are a delegation
	// token's id and HMAC (ScramLoginModule's tokenauth=true).
	TokenAuth bool
}

// AdminClientSettings reads the client properties of a Kafka tool's
// --command-config, as the Java AdminClient does:
//
//	security.protocol   PLAINTEXT (the default), SSL, SASL_PLAINTEXT, SASL_SSL
//	ssl.truststore.*    the CAs that verify the brokers (PEM, PKCS12 or JKS);
//	                    none means the system's
//	ssl.keystore.*      a client certificate, when the listener asks for one
//	                    (PEM, PKCS12 or JKS)
//	ssl.endpoint.identification.algorithm
//	                    https (the default) checks the broker's host name;
//	                    empty does not
//	ssl.enabled.protocols, ssl.cipher.suites
//	sasl.mechanism      GSSAPI (Kafka's default), PLAIN, SCRAM-SHA-256 or
//	                    SCRAM-SHA-512 (OAUTHBEARER is not offered)
//	sasl.jaas.config    the login module's username and password
//	                    (tokenauth=true: a delegation token's id and HMAC),
//	                    or for GSSAPI a Krb5LoginModule's keytab or
//	                    ticket cache
//	sasl.kerberos.service.name
//	                    GSSAPI: the brokers' principal name
//	kzadmin.krb5.conf   GSSAPI: the krb5.conf (default $KRB5_CONFIG,
//	                    else /etc/krb5.conf)
//
// Settings the client cannot honour are errors rather than ignored, so
// that a command never connects with less security than its file asks
// for.
func AdminClientSettings(props func(key string) (string, bool)) (AdminClient, error) {
	get := func(key string) string {
		v, _ := props(key)
		return strings.TrimSpace(v)
	}
	ac := AdminClient{Protocol: strings.ToUpper(get("security.protocol"))}
	if ac.Protocol == "" {
		ac.Protocol = "PLAINTEXT"
	}
	useTLS, useSASL, known := config.ProtocolLayers(ac.Protocol)
	if !known {
		return AdminClient{}, fmt.Errorf("security.protocol %q: must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", ac.Protocol)
	}
	if useTLS {
		// No listener: a client's keys carry no listener.name prefix.
		s := tlsconf.SettingsFromProperties(func(key string) (string, bool) {
			if strings.HasPrefix(key, "listener.name.") {
				return "", false
			}
			return props(key)
		}, "", false)
		s.ClientAuth, s.PrincipalMappingRules = "", ""
		alg, set := props("ssl.endpoint.identification.algorithm")
		verifyHost := !set || strings.EqualFold(strings.TrimSpace(alg), "https")
		if set && !verifyHost && strings.TrimSpace(alg) != "" {
			return AdminClient{}, fmt.Errorf("ssl.endpoint.identification.algorithm %q: must be https or empty", alg)
		}
		cfg, err := s.ClientConfig(verifyHost)
		if err != nil {
			return AdminClient{}, fmt.Errorf("security.protocol %s: %w", ac.Protocol, err)
		}
		ac.TLS = cfg
	}
	if useSASL {
		cred, token, err := adminCredentials(get, get("sasl.mechanism"), get("sasl.jaas.config"))
		if err != nil {
			return AdminClient{}, fmt.Errorf("security.protocol %s: %w", ac.Protocol, err)
		}
		ac.SASL, ac.TokenAuth = &cred, token
	}
	return ac, nil
}

// adminCredentials reads the mechanism and the login module's options.
func adminCredentials(get func(string) string, mech, jaas string) (cred sasl.ClientCredentials, tokenAuth bool, err error) {
	switch {
	case mech == "" || mech == sasl.GSSAPI: // GSSAPI is Kafka's default
		cred, err = kerberosCredentials(get, jaas)
		return cred, false, err
	case jaas == "":
		return cred, false, fmt.Errorf("SASL %s needs sasl.jaas.config with the login module's username and password", mech)
	}
	if cred, err = sasl.ClientCredentialsFromJAAS(mech, jaas); err != nil {
		return cred, false, err
	}
	if err := cred.Check(); err != nil {
		return cred, false, err
	}
	entries, _ := sasl.ParseJAAS(jaas) // parsed above without error
	if i := slices.IndexFunc(entries, func(e sasl.JAASEntry) bool { return e.Options["username"] != "" }); i >= 0 {
		tokenAuth = strings.EqualFold(entries[i].Options["tokenauth"], "true")
	}
	if tokenAuth && mech == sasl.MechanismPlain {
		return cred, false, fmt.Errorf("tokenauth=true needs a SCRAM mechanism, not PLAIN")
	}
	return cred, tokenAuth, nil
}

// kerberosCredentials are GSSAPI's: the Krb5LoginModule of
// sasl.jaas.config and the brokers' service name.
func kerberosCredentials(get func(string) string, jaas string) (sasl.ClientCredentials, error) {
	var entries []sasl.JAASEntry
	if jaas != "" {
		var err error
		if entries, err = sasl.ParseJAAS(jaas); err != nil {
			return sasl.ClientCredentials{}, err // it names sasl.jaas.config
		}
	}
	i := slices.IndexFunc(entries, func(e sasl.JAASEntry) bool { return sasl.IsKrb5LoginModule(e.Module) })
	if i < 0 {
		return sasl.ClientCredentials{}, fmt.Errorf("SASL GSSAPI (sasl.mechanism, Kafka's default) needs sasl.jaas.config with %s "+
			"(useKeyTab=true with keyTab and principal, or useTicketCache=true)", sasl.Krb5LoginModule)
	}
	service := get("sasl.kerberos.service.name")
	if service == "" {
		service = entries[i].Options["serviceName"]
	}
	if service == "" {
		return sasl.ClientCredentials{}, errors.New("SASL GSSAPI needs sasl.kerberos.service.name, the brokers' principal name " +
			"(kafka for kafka/<host>@<REALM>)")
	}
	ko, err := sasl.KerberosOptionsFromJAAS(entries[i].Options, get(config.Krb5ConfKey))
	if err != nil {
		return sasl.ClientCredentials{}, fmt.Errorf("sasl.jaas.config: %w", err)
	}
	login, err := sasl.NewKerberosLogin(ko)
	if err != nil {
		return sasl.ClientCredentials{}, fmt.Errorf("sasl.jaas.config: %w", err)
	}
	return sasl.ClientCredentials{Mechanism: sasl.GSSAPI, Kerberos: login, ServiceName: service}, nil
}
