package security

import (
	"fmt"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/security/tlsconf"
)

// Kerberos (SASL GSSAPI) on Kafka's side, configured as a Kafka broker's:
// the listener's Krb5LoginModule in
// listener.name.<listener>.gssapi.sasl.jaas.config (or the listener's or
// the broker-wide sasl.jaas.config), sasl.kerberos.service.name, and the
// krb5.conf of kzadmin.krb5.conf.

// gssapiJAAS finds the listener's Krb5LoginModule entry: its login, its
// serviceName option, and the key it came from.
func gssapiJAAS(get Getter, listener string) (ko sasl.KerberosOptions, serviceName, key string, err error) {
	prefix := config.ListenerPrefix + strings.ToLower(listener) + "."
	keys := []string{prefix + "gssapi.sasl.jaas.config", prefix + "sasl.jaas.config", "sasl.jaas.config"}
	for _, key := range keys {
		v, ok := get(key)
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		entries, err := sasl.ParseJAAS(v)
		if err != nil {
			return ko, "", key, fmt.Errorf("%s: %w", key, err)
		}
		for _, e := range entries {
			if !sasl.IsKrb5LoginModule(e.Module) {
				continue
			}
			krb5, _ := get(config.Krb5ConfKey)
			if ko, err = sasl.KerberosOptionsFromJAAS(e.Options, krb5); err != nil {
				return ko, "", key, fmt.Errorf("%s: %w", key, err)
			}
			return ko, strings.TrimSpace(e.Options["serviceName"]), key, nil
		}
	}
	return ko, "", "", fmt.Errorf("GSSAPI needs %s with %s (useKeyTab=true, keyTab, principal)",
		keys[0], sasl.Krb5LoginModule)
}

// checkPrincipalRules refuses principal-to-local rules other than
// Kafka's DEFAULT, the only mapping kzadmind applies.
func checkPrincipalRules(get Getter, listener string) error {
	v, ok := tlsconf.ListenerValue(get, listener, "sasl.kerberos.principal.to.local.rules")
	if !ok {
		return nil
	}
	for _, r := range tlsconf.List(v) {
		if r != "DEFAULT" {
			return fmt.Errorf("sasl.kerberos.principal.to.local.rules: only DEFAULT is supported (a principal of the "+
				"default realm maps to its first component), not %q", r)
		}
	}
	return nil
}

// gssapiAcceptor is the listener's GSSAPI acceptor.
func gssapiAcceptor(get Getter, listener string) (*sasl.GSSAPIAcceptor, error) {
	if err := checkPrincipalRules(get, listener); err != nil {
		return nil, err
	}
	ko, _, key, err := gssapiJAAS(get, listener)
	if err != nil {
		return nil, err
	}
	a, err := sasl.NewGSSAPIAcceptor(ko)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return a, nil
}

// gssapiClient is the Kerberos login and service name of the
// controller's connections to brokers on listener.
func gssapiClient(get Getter, listener string) (sasl.ClientCredentials, error) {
	ko, jaasService, key, err := gssapiJAAS(get, listener)
	if err != nil {
		return sasl.ClientCredentials{}, err
	}
	service, _ := tlsconf.ListenerValue(get, listener, "sasl.kerberos.service.name")
	if service = strings.TrimSpace(service); service == "" {
		service = jaasService // Kafka takes the JAAS option too
	}
	if service == "" {
		return sasl.ClientCredentials{}, fmt.Errorf("GSSAPI needs sasl.kerberos.service.name, the brokers' principal name " +
			"(kafka for kafka/<host>@<REALM>)")
	}
	login, err := sasl.NewKerberosLogin(ko)
	if err != nil {
		return sasl.ClientCredentials{}, fmt.Errorf("%s: %w", key, err)
	}
	return sasl.ClientCredentials{Mechanism: sasl.GSSAPI, Kerberos: login, ServiceName: service}, nil
}
