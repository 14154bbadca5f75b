package tlsconf

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// Store formats, by ssl.keystore.type and ssl.truststore.type. Kafka's
// default is JKS; here an unset type means PEM, the one format that needs
// no password, and JKS or PKCS12 must be named.
const (
	formatPEM    = "PEM"
	formatPKCS12 = "PKCS12"
	formatJKS    = "JKS"
)

// storeFormat reads a store type; key names it in the error.
func storeFormat(key, typ string) (string, error) {
	switch f := strings.ToUpper(strings.TrimSpace(typ)); f {
	case "", formatPEM:
		return formatPEM, nil
	case formatPKCS12, formatJKS:
		return f, nil
	}
	return "", fmt.Errorf("%s=%s is not supported: use PEM, PKCS12 or JKS", key, typ)
}

// binaryKeystore reads a PKCS12 or JKS keystore: its one private key and
// that key's certificate chain, leaf first. A JKS key protected by its own
// password takes ssl.key.password, else the store's, as Java's keytool
// makes them.
func binaryKeystore(format string, data []byte, storePassword, keyPassword string) (tls.Certificate, error) {
	if format == formatPKCS12 {
		key, leaf, chain, err := pkcs12.DecodeChain(data, storePassword)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("ssl.keystore (PKCS12): %w", err)
		}
		cert := tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
		for _, c := range chain {
			cert.Certificate = append(cert.Certificate, c.Raw)
		}
		return cert, nil
	}
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(storePassword)); err != nil {
		return tls.Certificate{}, fmt.Errorf("ssl.keystore (JKS): %w", err)
	}
	var keys []string
	for _, alias := range ks.Aliases() {
		if ks.IsPrivateKeyEntry(alias) {
			keys = append(keys, alias)
		}
	}
	if len(keys) != 1 {
		return tls.Certificate{}, fmt.Errorf("ssl.keystore (JKS): %d private keys (%s), want exactly one", len(keys), strings.Join(keys, ", "))
	}
	password := keyPassword
	if password == "" {
		password = storePassword
	}
	entry, err := ks.GetPrivateKeyEntry(keys[0], []byte(password))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("ssl.keystore (JKS) key %q: %w", keys[0], err)
	}
	key, err := x509.ParsePKCS8PrivateKey(entry.PrivateKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("ssl.keystore (JKS) key %q: %w", keys[0], err)
	}
	cert := tls.Certificate{PrivateKey: key}
	for _, c := range entry.CertificateChain {
		cert.Certificate = append(cert.Certificate, c.Content)
	}
	if len(cert.Certificate) == 0 {
		return tls.Certificate{}, fmt.Errorf("ssl.keystore (JKS) key %q has no certificate", keys[0])
	}
	if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
		return tls.Certificate{}, fmt.Errorf("ssl.keystore (JKS) key %q: %w", keys[0], err)
	}
	return cert, nil
}

// binaryTruststore reads the trusted certificates of a PKCS12 or JKS
// truststore.
func binaryTruststore(format string, data []byte, password string) ([]*x509.Certificate, error) {
	if format == formatPKCS12 {
		certs, err := pkcs12.DecodeTrustStore(data, password)
		if err != nil {
			return nil, fmt.Errorf("ssl.truststore (PKCS12): %w", err)
		}
		return certs, nil
	}
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
		return nil, fmt.Errorf("ssl.truststore (JKS): %w", err)
	}
	var out []*x509.Certificate
	aliases := ks.Aliases()
	slices.Sort(aliases)
	for _, alias := range aliases {
		if !ks.IsTrustedCertificateEntry(alias) {
			continue
		}
		entry, err := ks.GetTrustedCertificateEntry(alias)
		if err != nil {
			return nil, fmt.Errorf("ssl.truststore (JKS) %q: %w", alias, err)
		}
		c, err := x509.ParseCertificate(entry.Certificate.Content)
		if err != nil {
			return nil, fmt.Errorf("ssl.truststore (JKS) %q: %w", alias, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("ssl.truststore (JKS): no trusted certificate")
	}
	return out, nil
}
