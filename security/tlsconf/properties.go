package tlsconf

import "strings"

// Getter returns a configuration property by its Kafka name.
type Getter func(key string) (string, bool)

// ListenerValue resolves key for a listener as Kafka does: the
// listener-prefixed "listener.name.<listener, lower case>.<key>" wins over
// the plain key.
func ListenerValue(get Getter, listener, key string) (string, bool) {
	if v, ok := get("listener.name." + strings.ToLower(listener) + "." + key); ok {
		return v, true
	}
	return get(key)
}

// SettingsFromProperties reads a listener's ssl.* settings. For SASL_SSL
// listeners (saslSSL), ssl.client.auth is only taken from the
// listener-prefixed key, as in Kafka: a broker-wide ssl.client.auth is
// meant for its SSL listeners.
func SettingsFromProperties(get Getter, listener string, saslSSL bool) Settings {
	v := func(key string) string {
		s, _ := ListenerValue(get, listener, key)
		return strings.TrimSpace(s)
	}
	s := Settings{
		KeystoreType:             v("ssl.keystore.type"),
		KeystoreLocation:         v("ssl.keystore.location"),
		KeystorePassword:         v("ssl.keystore.password"),
		KeystoreKey:              v("ssl.keystore.key"),
		KeystoreCertificateChain: v("ssl.keystore.certificate.chain"),
		KeyPassword:              v("ssl.key.password"),
		TruststoreType:           v("ssl.truststore.type"),
		TruststoreLocation:       v("ssl.truststore.location"),
		TruststorePassword:       v("ssl.truststore.password"),
		TruststoreCertificates:   v("ssl.truststore.certificates"),
		ClientAuth:               v("ssl.client.auth"),
		EnabledProtocols:         List(v("ssl.enabled.protocols")),
		CipherSuites:             List(v("ssl.cipher.suites")),
		PrincipalMappingRules:    v("ssl.principal.mapping.rules"),
	}
	if saslSSL {
		s.ClientAuth, _ = get("listener.name." + strings.ToLower(listener) + ".ssl.client.auth")
		s.ClientAuth = strings.TrimSpace(s.ClientAuth)
	}
	return s
}

// List splits a Kafka list value at commas, trimming blanks and dropping
// empty items.
func List(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
