package tlsconf

import (
	"crypto/tls"
	"fmt"
	"path/filepath"
	"strings"
)

// ZooKeeperClientConfig reads Kafka's zookeeper.ssl.* settings (KIP-515)
// and returns the tls.Config for connecting to ZooKeeper's secure client
// port, or nil when zookeeper.ssl.client.enable is not true. They mean
// what they mean to a Kafka broker's ZooKeeper client:
//
//   - A store type left unset is told by the file's extension, as
//     ZooKeeper's X509Util does: .pem, .p12 or .pfx, .jks.
//   - ZooKeeper takes no key password of its own: the keystore password
//     opens the key too (an encrypted PEM key as well).
//   - zookeeper.ssl.protocol (TLSv1.2 by default) is the only version
//     offered unless zookeeper.ssl.enabled.protocols lists others; TLS
//     means TLS 1.2 and 1.3.
//   - zookeeper.ssl.endpoint.identification.algorithm is HTTPS by default:
//     the server's certificate must name the host dialled. Empty checks the
//     chain only.
//   - Revocation checks (zookeeper.ssl.crl.enable, zookeeper.ssl.ocsp.enable)
//     are refused.
//
// zookeeper.clientCnxnSocket, which Java's client needs for TLS, is not
// needed here and is ignored. The keystore's certificate, when there is
// one, gives the session ZooKeeper's x509 identity (its subject).
func ZooKeeperClientConfig(get Getter) (*tls.Config, error) {
	v := func(key string) string {
		s, _ := get(key)
		return strings.TrimSpace(s)
	}
	if enabled, err := zkBool(v, "zookeeper.ssl.client.enable"); err != nil || !enabled {
		return nil, err
	}
	for _, key := range []string{"zookeeper.ssl.crl.enable", "zookeeper.ssl.ocsp.enable"} {
		if on, err := zkBool(v, key); err != nil || on {
			if err == nil {
				err = fmt.Errorf("%s=true is not supported", key)
			}
			return nil, err
		}
	}
	s := Settings{
		KeystoreLocation:   v("zookeeper.ssl.keystore.location"),
		KeystorePassword:   v("zookeeper.ssl.keystore.password"),
		KeyPassword:        v("zookeeper.ssl.keystore.password"),
		TruststoreLocation: v("zookeeper.ssl.truststore.location"),
		TruststorePassword: v("zookeeper.ssl.truststore.password"),
		CipherSuites:       List(v("zookeeper.ssl.cipher.suites")),
	}
	var err error
	if s.KeystoreType, err = zkStoreType("zookeeper.ssl.keystore", v("zookeeper.ssl.keystore.type"), s.KeystoreLocation); err != nil {
		return nil, err
	}
	if s.TruststoreType, err = zkStoreType("zookeeper.ssl.truststore", v("zookeeper.ssl.truststore.type"), s.TruststoreLocation); err != nil {
		return nil, err
	}
	if s.EnabledProtocols, err = zkProtocols(v("zookeeper.ssl.protocol"), List(v("zookeeper.ssl.enabled.protocols"))); err != nil {
		return nil, err
	}
	var verifyHostname bool
	switch alg := v("zookeeper.ssl.endpoint.identification.algorithm"); {
	case alg == "", strings.EqualFold(alg, "https"):
		_, set := get("zookeeper.ssl.endpoint.identification.algorithm")
		verifyHostname = alg != "" || !set // unset means Kafka's default, HTTPS
	default:
		return nil, fmt.Errorf("zookeeper.ssl.endpoint.identification.algorithm=%s: must be HTTPS or empty", alg)
	}
	cfg, err := s.ClientConfig(verifyHostname)
	if err != nil {
		return nil, fmt.Errorf("TLS to ZooKeeper (zookeeper.ssl.*): %w", err)
	}
	return cfg, nil
}

// zkBool reads a boolean zookeeper.ssl key; unset is false.
func zkBool(v func(string) string, key string) (bool, error) {
	switch strings.ToLower(v(key)) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, fmt.Errorf("%s=%s: must be true or false", key, v(key))
}

// zkStoreType is a ZooKeeper store's type: the one given, or the one its
// file's extension tells.
func zkStoreType(store, typ, location string) (string, error) {
	if typ != "" || location == "" {
		return typ, nil
	}
	switch strings.ToLower(filepath.Ext(location)) {
	case ".pem":
		return formatPEM, nil
	case ".p12", ".pfx":
		return formatPKCS12, nil
	case ".jks":
		return formatJKS, nil
	}
	return "", fmt.Errorf("%s.type is unset and the extension of %s does not tell the store's type (.pem, .p12, .pfx or .jks): set it",
		store, location)
}

// zkProtocols is the TLS versions offered to ZooKeeper: the enabled ones
// when listed, else zookeeper.ssl.protocol (TLSv1.2 by default).
func zkProtocols(protocol string, enabled []string) ([]string, error) {
	if len(enabled) > 0 {
		return enabled, nil
	}
	switch strings.ToUpper(protocol) {
	case "", "TLSV1.2":
		return []string{"TLSv1.2"}, nil
	case "TLSV1.3":
		return []string{"TLSv1.3"}, nil
	case "TLS":
		return []string{"TLSv1.2", "TLSv1.3"}, nil
	}
	return nil, fmt.Errorf("zookeeper.ssl.protocol=%s: must be TLSv1.2, TLSv1.3 or TLS", protocol)
}
