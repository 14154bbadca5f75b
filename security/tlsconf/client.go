package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// ClientConfig builds the tls.Config for connecting to a Kafka listener
// with s: the truststore verifies the server (the system roots when none
// is set, as Java's default truststore would), the keystore, when set, is
// the client certificate for ssl.client.auth. verifyHostname is
// ssl.endpoint.identification.algorithm=https (Kafka's default); without
// it the chain is still verified, the name is not. Set ServerName per
// connection (Clone the config).
func (s Settings) ClientConfig(verifyHostname bool) (*tls.Config, error) {
	cfg := &tls.Config{}
	if s.KeystoreLocation != "" || s.KeystoreKey != "" || s.KeystoreCertificateChain != "" {
		cert, err := s.certificate()
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	var err error
	if cfg.RootCAs, err = s.trustPool(); err != nil {
		return nil, err
	}
	if cfg.MinVersion, cfg.MaxVersion, err = protocolRange(s.EnabledProtocols); err != nil {
		return nil, err
	}
	if cfg.CipherSuites, err = cipherSuites(s.CipherSuites); err != nil {
		return nil, err
	}
	if !verifyHostname {
		// Go verifies the name together with the chain; to skip only the
		// name, verify the chain here instead.
		roots := cfg.RootCAs
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(st tls.ConnectionState) error { return verifyChain(st, roots) }
	}
	return cfg, nil
}

// verifyChain verifies the peer's chain against roots (nil: the system's)
// without checking the host name.
func verifyChain(st tls.ConnectionState, roots *x509.CertPool) error {
	if len(st.PeerCertificates) == 0 {
		return errors.New("tls: server sent no certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range st.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	_, err := st.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if err != nil {
		return fmt.Errorf("tls: verify server certificate: %w", err)
	}
	return nil
}
