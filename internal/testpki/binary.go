package testpki

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// WriteBinaryStores is WriteStores for the stores Java's keytool makes:
// format PKCS12 or JKS, both stores under password, written to dir as
// <name>-keystore.<p12|jks> and <name>-truststore.<p12|jks>.
func (ca *CA) WriteBinaryStores(dir, name string, o Options, format, password string) (Stores, error) {
	leaf, err := ca.Issue(o)
	if err != nil {
		return Stores{}, fmt.Errorf("issue %s: %w", name, err)
	}
	blk, _ := pem.Decode(leaf.KeyPEM)
	if blk == nil {
		return Stores{}, errors.New("leaf key is not PEM")
	}
	var ks, ts []byte
	switch format {
	case "PKCS12":
		key, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return Stores{}, err
		}
		if ks, err = pkcs12.Modern.Encode(key, leaf.Cert, []*x509.Certificate{ca.Cert}, password); err != nil {
			return Stores{}, err
		}
		if ts, err = pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{ca.Cert}, password); err != nil {
			return Stores{}, err
		}
	case "JKS":
		now := time.Now()
		chain := []keystore.Certificate{{Type: "X509", Content: leaf.Cert.Raw}, {Type: "X509", Content: ca.Cert.Raw}}
		keys := keystore.New()
		if err := keys.SetPrivateKeyEntry(name, keystore.PrivateKeyEntry{CreationTime: now, PrivateKey: blk.Bytes,
			CertificateChain: chain}, []byte(password)); err != nil {
			return Stores{}, err
		}
		trust := keystore.New()
		if err := trust.SetTrustedCertificateEntry("ca", keystore.TrustedCertificateEntry{CreationTime: now,
			Certificate: keystore.Certificate{Type: "X509", Content: ca.Cert.Raw}}); err != nil {
			return Stores{}, err
		}
		var kb, tb bytes.Buffer
		if err := keys.Store(&kb, []byte(password)); err != nil {
			return Stores{}, err
		}
		if err := trust.Store(&tb, []byte(password)); err != nil {
			return Stores{}, err
		}
		ks, ts = kb.Bytes(), tb.Bytes()
	default:
		return Stores{}, fmt.Errorf("store format %q: want PKCS12 or JKS", format)
	}
	ext := map[string]string{"PKCS12": ".p12", "JKS": ".jks"}[format]
	ksPath, err := WriteFile(dir, name+"-keystore"+ext, ks)
	if err != nil {
		return Stores{}, err
	}
	tsPath, err := WriteFile(dir, name+"-truststore"+ext, ts)
	if err != nil {
		return Stores{}, err
	}
	return Stores{Keystore: ksPath, Truststore: tsPath}, nil
}
