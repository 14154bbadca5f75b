// Package tlsconf turns Kafka's ssl.* listener settings into a crypto/tls
// server configuration, and names the principal of a TLS client as Kafka's
// DefaultKafkaPrincipalBuilder does.
//
// # Settings
//
// Key material is PEM (ssl.keystore.type=PEM and ssl.truststore.type=PEM,
// KIP-651), PKCS12 or JKS. A PEM keystore is a file holding the private
// key and the certificate chain, or the two inline in ssl.keystore.key and
// ssl.keystore.certificate.chain; its key is PKCS#8, unencrypted or
// encrypted under ssl.key.password (PBE-SHA1-3DES, as Kafka's own tests use, or
// PBES2: see decryptedKeyPEM). A PEM truststore is a file of CA
// certificates, or ssl.truststore.certificates inline. PKCS12 and JKS
// stores open with ssl.keystore.password and ssl.truststore.password, and
// a JKS key with its own password with ssl.key.password. An unset type
// means PEM, where Kafka's default is JKS.
//
// ssl.client.auth is none, requested or required (crypto/tls's
// NoClientCert, VerifyClientCertIfGiven and RequireAndVerifyClientCert).
// ssl.enabled.protocols bounds the TLS versions and ssl.cipher.suites, when
// set, lists the TLS 1.2 suites allowed by their IANA names, which Java and
// Go share.
//
// # Principal
//
// A client without a certificate is User:ANONYMOUS. Otherwise the
// certificate's subject is written as Java's X500Principal.getName() does
// (RFC 2253: RDNs last to first, the keywords CN, C, L, ST, O, OU, STREET,
// DC and UID, other attributes as <oid>=#<hex of the DER value>), and
// ssl.principal.mapping.rules turn it into the principal's name:
// DEFAULT keeps the DN, RULE:<regex>/<replacement>/[LU] rewrites a DN the
// regex matches in full. A DN no rule maps fails the connection, as in
// Kafka.
package tlsconf
