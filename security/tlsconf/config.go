package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// Settings are a listener's ssl.* settings, by Kafka's names.
type Settings struct {
	// KeystoreType is ssl.keystore.type: PEM (or empty, meaning PEM here
	// although Kafka's default is JKS), PKCS12 or JKS.
	KeystoreType string
	// KeystoreLocation is ssl.keystore.location: a PEM file with the
	// private key and the certificate chain, leaf first, or a PKCS12 or
	// JKS store holding one private key, opened with KeystorePassword
	// (ssl.keystore.password).
	KeystoreLocation string
	KeystorePassword string
	// KeystoreKey and KeystoreCertificateChain are ssl.keystore.key and
	// ssl.keystore.certificate.chain: the same PEM, inline.
	KeystoreKey              string
	KeystoreCertificateChain string
	// KeyPassword is ssl.key.password: the password of an encrypted PEM
	// private key (PKCS#8), or a JKS key's own password (the store's when
	// empty).
	KeyPassword string
	// TruststoreType, TruststoreLocation and TruststoreCertificates are
	// ssl.truststore.type (PEM, PKCS12 or JKS), ssl.truststore.location
	// (a file of CA certificates, opened with TruststorePassword,
	// ssl.truststore.password, unless PEM) and ssl.truststore.certificates
	// (PEM, inline).
	TruststoreType         string
	TruststoreLocation     string
	TruststorePassword     string
	TruststoreCertificates string
	// ClientAuth is ssl.client.auth: none (default), requested or
	// required.
	ClientAuth string
	// EnabledProtocols is ssl.enabled.protocols; empty means TLSv1.2 and
	// TLSv1.3, Kafka's default.
	EnabledProtocols []string
	// CipherSuites is ssl.cipher.suites; empty means Go's defaults.
	CipherSuites []string
	// PrincipalMappingRules is ssl.principal.mapping.rules; empty means
	// DEFAULT.
	PrincipalMappingRules string
}

// ServerConfig builds the listener's tls.Config.
func (s Settings) ServerConfig() (*tls.Config, error) {
	cert, err := s.certificate()
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if cfg.ClientAuth, err = clientAuth(s.ClientAuth); err != nil {
		return nil, err
	}
	if cfg.ClientCAs, err = s.trustPool(); err != nil {
		return nil, err
	}
	if cfg.ClientAuth != tls.NoClientCert && cfg.ClientCAs == nil {
		return nil, fmt.Errorf("ssl.client.auth=%s needs a truststore (ssl.truststore.location or ssl.truststore.certificates)", s.ClientAuth)
	}
	if cfg.MinVersion, cfg.MaxVersion, err = protocolRange(s.EnabledProtocols); err != nil {
		return nil, err
	}
	if cfg.CipherSuites, err = cipherSuites(s.CipherSuites); err != nil {
		return nil, err
	}
	return cfg, nil
}

// PrincipalBuilder returns the wire.Config.TLSPrincipal function for s's
// mapping rules.
func (s Settings) PrincipalBuilder() (func(tls.ConnectionState) (wire.Principal, error), error) {
	rules, err := ParseMappingRules(s.PrincipalMappingRules)
	if err != nil {
		return nil, err
	}
	return func(st tls.ConnectionState) (wire.Principal, error) {
		return Principal(st, rules)
	}, nil
}

// Principal is Kafka's principal for a TLS connection: User:ANONYMOUS
// without a client certificate, else User:<the mapped subject DN>.
func Principal(st tls.ConnectionState, rules MappingRules) (wire.Principal, error) {
	if len(st.PeerCertificates) == 0 {
		return wire.AnonymousPrincipal(), nil
	}
	dn, err := SubjectDN(st.PeerCertificates[0])
	if err != nil {
		return wire.Principal{}, err
	}
	name, err := rules.Map(dn)
	if err != nil {
		return wire.Principal{}, err
	}
	return wire.Principal{Type: "User", Name: name}, nil
}

func (s Settings) certificate() (tls.Certificate, error) {
	format, err := storeFormat("ssl.keystore.type", s.KeystoreType)
	if err != nil {
		return tls.Certificate{}, err
	}
	if format != formatPEM {
		if s.KeystoreLocation == "" || s.KeystoreKey != "" || s.KeystoreCertificateChain != "" {
			return tls.Certificate{}, fmt.Errorf("ssl.keystore.type=%s needs ssl.keystore.location (ssl.keystore.key and "+
				"ssl.keystore.certificate.chain are PEM only)", format)
		}
		data, err := os.ReadFile(s.KeystoreLocation)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("ssl.keystore.location: %w", err)
		}
		return binaryKeystore(format, data, s.KeystorePassword, s.KeyPassword)
	}
	var certPEM, keyPEM []byte
	switch {
	case s.KeystoreLocation != "" && (s.KeystoreKey != "" || s.KeystoreCertificateChain != ""):
		return tls.Certificate{}, errors.New("set either ssl.keystore.location or ssl.keystore.key and ssl.keystore.certificate.chain, not both")
	case s.KeystoreLocation != "":
		b, err := os.ReadFile(s.KeystoreLocation)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("ssl.keystore.location: %w", err)
		}
		certPEM, keyPEM = b, b
	case s.KeystoreKey != "" && s.KeystoreCertificateChain != "":
		certPEM, keyPEM = []byte(s.KeystoreCertificateChain), []byte(s.KeystoreKey)
	default:
		return tls.Certificate{}, errors.New("TLS listener needs ssl.keystore.location, or ssl.keystore.key and ssl.keystore.certificate.chain")
	}
	keyPEM, err = decryptedKeyPEM(keyPEM, s.KeyPassword)
	if err != nil {
		return tls.Certificate{}, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("ssl.keystore: %w", err)
	}
	return cert, nil
}

// trustPool returns the CA pool, or nil when no truststore is set.
func (s Settings) trustPool() (*x509.CertPool, error) {
	format, err := storeFormat("ssl.truststore.type", s.TruststoreType)
	if err != nil {
		return nil, err
	}
	if format != formatPEM {
		if s.TruststoreLocation == "" || s.TruststoreCertificates != "" {
			return nil, fmt.Errorf("ssl.truststore.type=%s needs ssl.truststore.location (ssl.truststore.certificates is PEM only)", format)
		}
		data, err := os.ReadFile(s.TruststoreLocation)
		if err != nil {
			return nil, fmt.Errorf("ssl.truststore.location: %w", err)
		}
		certs, err := binaryTruststore(format, data, s.TruststorePassword)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		for _, c := range certs {
			pool.AddCert(c)
		}
		return pool, nil
	}
	var data []byte
	switch {
	case s.TruststoreLocation != "" && s.TruststoreCertificates != "":
		return nil, errors.New("set either ssl.truststore.location or ssl.truststore.certificates, not both")
	case s.TruststoreLocation != "":
		b, err := os.ReadFile(s.TruststoreLocation)
		if err != nil {
			return nil, fmt.Errorf("ssl.truststore.location: %w", err)
		}
		data = b
	case s.TruststoreCertificates != "":
		data = []byte(s.TruststoreCertificates)
	default:
		return nil, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, errors.New("ssl.truststore: no PEM certificate found")
	}
	return pool, nil
}

func clientAuth(s string) (tls.ClientAuthType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "none":
		return tls.NoClientCert, nil
	case "requested":
		return tls.VerifyClientCertIfGiven, nil
	case "required":
		return tls.RequireAndVerifyClientCert, nil
	}
	return 0, fmt.Errorf("ssl.client.auth=%q: want none, requested or required", s)
}

// protocolRange maps ssl.enabled.protocols to a version range.
func protocolRange(protocols []string) (lo, hi uint16, err error) {
	if len(protocols) == 0 {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	for _, p := range protocols {
		var v uint16
		switch strings.TrimSpace(p) {
		case "TLSv1.3":
			v = tls.VersionTLS13
		case "TLSv1.2":
			v = tls.VersionTLS12
		case "TLSv1.1":
			v = tls.VersionTLS11
		case "TLSv1":
			v = tls.VersionTLS10
		default:
			return 0, 0, fmt.Errorf("ssl.enabled.protocols: %q is not one of TLSv1.3, TLSv1.2, TLSv1.1, TLSv1", p)
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi, nil
}

// cipherSuites maps IANA suite names to ids; nil means Go's defaults.
func cipherSuites(names []string) ([]uint16, error) {
	if len(names) == 0 {
		return nil, nil
	}
	known := map[string]uint16{}
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		known[cs.Name] = cs.ID
	}
	var ids []uint16
	for _, n := range names {
		id, ok := known[strings.TrimSpace(n)]
		if !ok {
			return nil, fmt.Errorf("ssl.cipher.suites: %q is not a cipher suite Go implements", n)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
