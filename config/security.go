package config

import (
	"errors"
	"maps"
	"slices"
	"strings"
)

// ListenerPrefix starts the per-listener form of a security key,
// listener.name.<listener, lower case>.<key>, which wins over the plain key
// for that listener, as in Kafka. Such keys are read from the properties
// file only (an environment variable cannot spell the listener name and
// the dots apart) and kept in Config.Props as given.
const ListenerPrefix = "listener.name."

// ZooKeeperDigestKey is kzadmin's own key for ZooKeeper digest
// authentication, user:password.
const ZooKeeperDigestKey = "kzadmin.zookeeper.digest"

// ZooKeeperJAASFileKey is kzadmin's own key for SASL to ZooKeeper: the
// JAAS file whose section (zookeeper.sasl.clientconfig, default Client)
// holds the login, the file Kafka's brokers are given with
// -Djava.security.auth.login.config.
const ZooKeeperJAASFileKey = "kzadmin.zookeeper.sasl.jaas.file"

// Krb5ConfKey is kzadmin's own key for the krb5.conf of its Kerberos
// logins, to ZooKeeper and to brokers (Java's -Djava.security.krb5.conf).
const Krb5ConfKey = "kzadmin.krb5.conf"

// hidden replaces a sensitive value in error messages.
const hidden = "[hidden]"

// Property returns a security property by its Kafka name, as given in the
// file, environment or flags. It has the shape of security.Getter, so the
// daemon passes c.Property to the security package.
func (c Config) Property(key string) (string, bool) {
	v, ok := c.Props[key]
	return v, ok
}

// IsSecurityKey reports whether key is kept in Config.Props: one of the
// security keys, or a listener-prefixed key.
func IsSecurityKey(key string) bool {
	if strings.HasPrefix(key, ListenerPrefix) {
		return len(key) > len(ListenerPrefix)
	}
	s, ok := lookupSpec(key)
	return ok && s.prop
}

// isSensitiveKey reports whether key's value must not be shown: passwords,
// private keys and JAAS configurations (which hold PLAIN passwords).
func isSensitiveKey(key string) bool {
	return strings.HasSuffix(key, ".password") || strings.HasSuffix(key, "sasl.jaas.config") ||
		strings.HasSuffix(key, "ssl.keystore.key") || key == ZooKeeperDigestKey ||
		key == DelegationTokenSecretKey || key == DelegationTokenMasterKey
}

// shownValue is v, or a placeholder when key is sensitive.
func shownValue(key, v string) string {
	if isSensitiveKey(key) && v != "" {
		return hidden
	}
	return v
}

// withProp returns a copy of props with key set to v, or removed when v is
// empty. Copying keeps Config a value: a copy's Props never changes under
// the original.
func withProp(props map[string]string, key, v string) map[string]string {
	out := maps.Clone(props)
	if v == "" {
		delete(out, key)
		if len(out) == 0 {
			return nil
		}
		return out
	}
	if out == nil {
		out = make(map[string]string)
	}
	out[key] = v
	return out
}

// propKey is a security key held in Config.Props as given. check, when
// set, gets the trimmed value and returns the reason it is refused.
func propKey(name, doc string, check func(v string) string) keySpec {
	s := keySpec{
		name: name, doc: doc, prop: true, typ: securityKeyType(name),
		get: func(c Config) string { return c.Props[name] },
		set: func(c *Config, s string) error {
			c.Props = withProp(c.Props, name, s)
			return nil
		},
	}
	if check != nil {
		s.check = func(c Config) string {
			v, ok := c.Props[name]
			if !ok {
				return ""
			}
			return check(strings.TrimSpace(v))
		}
	}
	return s
}

func oneOf(allowed ...string) func(string) string {
	return func(v string) string {
		for _, a := range allowed {
			if strings.EqualFold(v, a) {
				return ""
			}
		}
		return "must be one of " + strings.Join(allowed, ", ")
	}
}

func nonNegativeInt(v string) string {
	if n, err := parseInt(v, 32); err != nil || n < 0 {
		return "must be a 32-bit integer >= 0"
	}
	return ""
}

func positiveInt(v string) string {
	if n, err := parseInt(v, 32); err != nil || n <= 0 {
		return "must be a 32-bit integer > 0"
	}
	return ""
}

func checkDigest(v string) string {
	user, _, ok := strings.Cut(v, ":")
	if !ok || user == "" {
		return "must be user:password"
	}
	return ""
}

// checkEndpointIdentification accepts https or nothing, Kafka's two
// values for ssl.endpoint.identification.algorithm.
func checkEndpointIdentification(v string) string {
	if v == "" || strings.EqualFold(v, "https") {
		return ""
	}
	return "must be https or empty"
}

func checkBool(v string) string {
	if _, err := parseBool(v); err != nil {
		return err.Error()
	}
	return ""
}

// checkPrincipals accepts Kafka's super.users: <type>:<name> separated by
// ';'.
func checkPrincipals(v string) string {
	for _, p := range strings.Split(v, ";") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if typ, name, ok := strings.Cut(p, ":"); !ok || typ == "" || name == "" {
			return "must be <type>:<name> separated by ';', e.g. User:admin;User:alice"
		}
	}
	return ""
}

// securityKeyType is the Kafka ConfigDef type of a security key ("" for
// STRING).
func securityKeyType(name string) string {
	if isSensitiveKey(name) || IsKafkaPasswordConfig(name) {
		return "PASSWORD"
	}
	switch name {
	case "ssl.enabled.protocols", "ssl.cipher.suites", "sasl.enabled.mechanisms",
		"zookeeper.ssl.enabled.protocols", "zookeeper.ssl.cipher.suites":
		return "LIST"
	case "sasl.server.max.receive.size", "connection.failed.authentication.delay.ms":
		return "INT"
	case "allow.everyone.if.no.acl.found", "zookeeper.ssl.client.enable", "zookeeper.ssl.crl.enable", "zookeeper.ssl.ocsp.enable":
		return "BOOLEAN"
	}
	return ""
}

// securityKeys are the TLS, SASL and authorizer keys the security package
// reads (see its doc), and the ZooKeeper digest. Their values are kept as
// given in Config.Props; the checks here catch what can be caught without
// reading files.
func securityKeys() []keySpec {
	return []keySpec{
		propKey("ssl.keystore.type", "Keystore format: PEM (the default here), PKCS12 or JKS.", oneOf("PEM", "PKCS12", "JKS")),
		propKey("ssl.keystore.location", "The listener's private key and certificate chain: a PEM file (the key PKCS#8, unencrypted), "+
			"or a PKCS12 or JKS store holding one private key.", nil),
		propKey("ssl.keystore.password", "Password of a PKCS12 or JKS keystore.", nil),
		propKey("ssl.keystore.key", "The listener's private key, PEM, inline.", nil),
		propKey("ssl.keystore.certificate.chain", "The listener's certificate chain, PEM, inline.", nil),
		propKey("ssl.key.password", "Password of an encrypted PEM private key (PKCS#8: PBE-SHA1-3DES, as Kafka's own tests use, "+
			"or PBES2), or of a JKS store's private key when it differs from the store's.", nil),
		propKey("ssl.truststore.type", "Truststore format: PEM (the default here), PKCS12 or JKS.", oneOf("PEM", "PKCS12", "JKS")),
		propKey("ssl.truststore.location", "The CA certificates trusted for client certificates: a PEM file, or a PKCS12 or JKS store.", nil),
		propKey("ssl.truststore.password", "Password of a PKCS12 or JKS truststore.", nil),
		propKey("ssl.truststore.certificates", "CA certificates trusted for client certificates, PEM, inline.", nil),
		propKey("ssl.client.auth", "Client certificates: none, requested or required (SASL_SSL: listener-prefixed key only).",
			oneOf("none", "requested", "required")),
		propKey("ssl.enabled.protocols", "TLS versions offered, e.g. TLSv1.2,TLSv1.3.", nil),
		propKey("ssl.cipher.suites", "TLS cipher suites offered (TLS 1.2); empty: Go's defaults.", nil),
		propKey("ssl.principal.mapping.rules", "Rules mapping a certificate's distinguished name to a principal name.", nil),
		propKey("sasl.enabled.mechanisms", "SASL mechanisms offered: GSSAPI (Kafka's default), PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (comma-separated).", nil),
		propKey("sasl.kerberos.service.name", "The brokers' Kerberos principal name (kafka for kafka/<host>@<REALM>), for GSSAPI towards them.", nil),
		propKey("sasl.kerberos.principal.to.local.rules", "How GSSAPI principals map to user names: DEFAULT only (the default realm's "+
			"principals map to their first component).", nil),
		propKey("sasl.server.max.receive.size", "Largest SASL token accepted before authentication (default 524288).", positiveInt),
		propKey("connection.failed.authentication.delay.ms", "Delay before closing a connection that failed authentication (default 100).", nonNegativeInt),
		propKey("sasl.mechanism.inter.broker.protocol", "SASL mechanism the controller authenticates to brokers with: GSSAPI (Kafka's default), "+
			"PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.", oneOf("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")),
		propKey("sasl.jaas.config", "Login module with the controller's username and password towards brokers; the listener-prefixed form wins.", nil),
		propKey("ssl.endpoint.identification.algorithm", "https (the default) checks brokers' host names against their certificates; empty does not.",
			checkEndpointIdentification),
		propKey("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer turns on Kafka's ZooKeeper ACL authorizer. Empty: allow everything.", nil),
		propKey("super.users", "Principals allowed everything: User:a;User:b.", checkPrincipals),
		propKey("allow.everyone.if.no.acl.found", "Allow access to resources no ACL applies to (default false).", checkBool),
		propKey(ZooKeeperDigestKey, "ZooKeeper digest authentication, user:password. Empty: none.", checkDigest),
		propKey(ZooKeeperJAASFileKey, "A JAAS login configuration file, as the brokers' java.security.auth.login.config: "+
			"kzadmin logs in to ZooKeeper as its section zookeeper.sasl.clientconfig says, with SASL DIGEST-MD5 "+
			"(DigestLoginModule) or Kerberos (Krb5LoginModule: a keytab or a ticket cache). Empty: no SASL.", nil),
		propKey("zookeeper.sasl.clientconfig", "The section of "+ZooKeeperJAASFileKey+" to log in to ZooKeeper with "+
			"(ZooKeeper's client property; default Client).", nil),
		propKey(Krb5ConfKey, "The krb5.conf of kzadmin's Kerberos logins (ZooKeeper, brokers, GSSAPI listeners), as Java's java.security.krb5.conf "+
			"(default $KRB5_CONFIG, else /etc/krb5.conf).", nil),
		propKey("zookeeper.sasl.client.username", "The service name of ZooKeeper's Kerberos principal, <name>/<host> "+
			"(ZooKeeper's client property; default zookeeper).", nil),
		propKey("zookeeper.sasl.client.canonicalize.hostname", "Name ZooKeeper's Kerberos principal with the canonical host "+
			"name of the server's address (ZooKeeper's client property; default true).", checkBool),
		propKey("zookeeper.server.principal", "ZooKeeper's whole Kerberos principal, instead of <service name>/<host> "+
			"(ZooKeeper's client property).", nil),
	}
}

// zooKeeperTLSKeys are Kafka's zookeeper.ssl.* keys (KIP-515): TLS to
// ZooKeeper, read by security/tlsconf.ZooKeeperClientConfig. As in Kafka,
// a store type left unset is told by the file's extension, the keystore
// password also opens its key, and TLS 1.2 is the default protocol.
func zooKeeperTLSKeys() []keySpec {
	storeType := oneOf("PEM", "PKCS12", "JKS")
	return []keySpec{
		propKey("zookeeper.ssl.client.enable", "Connect to ZooKeeper over TLS (its secureClientPort).", checkBool),
		propKey("zookeeper.clientCnxnSocket", "Java's ZooKeeper client socket class, which TLS needs there "+
			"(org.apache.zookeeper.ClientCnxnSocketNetty); accepted and not needed here.", nil),
		propKey("zookeeper.ssl.keystore.location", "Client certificate and key for ZooKeeper: a PEM file (key then chain), "+
			"or a PKCS12 or JKS store. Its subject is the session's x509 identity.", nil),
		propKey("zookeeper.ssl.keystore.password", "Password of the ZooKeeper keystore, and of its key (an encrypted PEM key too).", nil),
		propKey("zookeeper.ssl.keystore.type", "PEM, PKCS12 or JKS; unset: told by the file's extension (.pem, .p12 or .pfx, .jks).", storeType),
		propKey("zookeeper.ssl.truststore.location", "CA certificates trusted for ZooKeeper's servers: a PEM file, or a PKCS12 or JKS store. "+
			"Unset: the system's.", nil),
		propKey("zookeeper.ssl.truststore.password", "Password of a PKCS12 or JKS ZooKeeper truststore.", nil),
		propKey("zookeeper.ssl.truststore.type", "PEM, PKCS12 or JKS; unset: told by the file's extension.", storeType),
		propKey("zookeeper.ssl.protocol", "TLS version towards ZooKeeper when zookeeper.ssl.enabled.protocols is unset: "+
			"TLSv1.2 (the default), TLSv1.3, or TLS for both.", oneOf("TLSv1.2", "TLSv1.3", "TLS")),
		propKey("zookeeper.ssl.enabled.protocols", "TLS versions towards ZooKeeper, e.g. TLSv1.2,TLSv1.3.", nil),
		propKey("zookeeper.ssl.cipher.suites", "TLS 1.2 cipher suites towards ZooKeeper; empty: Go's defaults.", nil),
		propKey("zookeeper.ssl.endpoint.identification.algorithm", "HTTPS (the default) checks ZooKeeper's host names against "+
			"their certificates; empty does not.", checkEndpointIdentification),
		propKey("zookeeper.ssl.crl.enable", "Certificate revocation lists: false only (not supported).", falseOnly),
		propKey("zookeeper.ssl.ocsp.enable", "OCSP: false only (not supported).", falseOnly),
	}
}

// falseOnly accepts a boolean that must be false: a check kzadmind cannot
// make is refused rather than skipped.
func falseOnly(v string) string {
	b, err := parseBool(v)
	if err != nil {
		return err.Error()
	}
	if b {
		return "true is not supported"
	}
	return ""
}

// withListenerProps adds the listener-prefixed keys to c.Props.
func withListenerProps(c Config, vals map[string]rawValue) Config {
	if len(vals) == 0 {
		return c
	}
	props := maps.Clone(c.Props)
	if props == nil {
		props = make(map[string]string, len(vals))
	}
	for k, v := range vals {
		props[k] = v.value
	}
	c.Props = props
	return c
}

// OverlayZooKeeperTLS sets on c the zookeeper.ssl.* keys (and
// zookeeper.clientCnxnSocket) of props, as Kafka's tools read their
// --zk-tls-config-file: every other key is ignored, and returned. origin
// names the file in errors.
func OverlayZooKeeperTLS(c Config, props map[string]string, origin string) (Config, []string, error) {
	specs := map[string]keySpec{}
	for _, s := range zooKeeperTLSKeys() {
		specs[s.name] = s
	}
	var ignored []string
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(props)) {
		s, ok := specs[k]
		if !ok {
			ignored = append(ignored, k)
			continue
		}
		if reason := s.apply(&c, props[k]); reason != "" {
			errs = append(errs, &ValueError{Key: k, Value: shownValue(k, props[k]), Reason: reason, Origin: origin})
		}
	}
	return c, ignored, errors.Join(errs...)
}
