package tlsconf

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/youmark/pkcs8"
)

// encryptedKeyType is the PEM type of an encrypted PKCS#8 private key, as
// `openssl pkcs8 -topk8` writes it and Kafka's PEM keystores take with
// ssl.key.password.
const encryptedKeyType = "ENCRYPTED PRIVATE KEY"

// decryptedKeyPEM returns keyPEM's private key as crypto/tls reads it: an
// encrypted PKCS#8 key is decrypted with password and returned as the one
// PEM block; any other PEM is returned as it is. Kafka refuses an
// unencrypted key when ssl.key.password is set; here the password then
// protects nothing and is ignored.
//
// The key must be encrypted with PKCS#12's PBE-SHA1-3DES (`openssl pkcs8
// -topk8 -v1 PBE-SHA1-3DES`), the scheme Kafka's own tests use and one a
// Java 17 broker reads, or with PBES2 (OpenSSL's default since 1.1, whose
// default form Kafka on Java 17 did not read when tested): PBKDF2 with HMAC-SHA256 or HMAC-SHA1, or scrypt,
// and AES-CBC or 3DES-CBC. Other schemes (PBKDF2 with HMAC-SHA512, the
// single-DES and RC2 ones) are refused with the reason.
func decryptedKeyPEM(keyPEM []byte, password string) ([]byte, error) {
	var encrypted []*pem.Block
	for rest := keyPEM; ; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			break
		}
		if strings.Contains(blk.Headers["Proc-Type"], "ENCRYPTED") {
			return nil, errors.New("ssl.keystore: the private key is encrypted in OpenSSL's legacy format (Proc-Type: 4,ENCRYPTED), " +
				"which Kafka does not read either; convert it to PKCS#8: openssl pkcs8 -topk8 -in key.pem -out key.p8.pem")
		}
		if blk.Type == encryptedKeyType {
			encrypted = append(encrypted, blk)
		}
	}
	switch {
	case len(encrypted) == 0:
		return keyPEM, nil
	case len(encrypted) > 1:
		return nil, fmt.Errorf("ssl.keystore: expected one private key, found %d encrypted ones", len(encrypted))
	case password == "":
		return nil, errors.New("ssl.keystore: the private key is encrypted (" + encryptedKeyType + "): set ssl.key.password")
	}
	der := encrypted[0].Bytes
	if err := kdfCostError(der); err != nil {
		return nil, fmt.Errorf("ssl.keystore: the encrypted private key: %w", err)
	}
	var key any
	var err error
	if pkcs12PBEScheme(der) {
		key, err = decryptPKCS12PBEKey(der, password)
	} else {
		key, err = pkcs8.ParsePKCS8PrivateKey(der, []byte(password))
	}
	if err != nil {
		if strings.Contains(err.Error(), errIncorrectKeyPassword.Error()) { // the PBES2 library exports no error values
			return nil, fmt.Errorf("ssl.keystore: decrypt the private key with ssl.key.password: %w", err)
		}
		return nil, fmt.Errorf("ssl.keystore: decrypt the private key with ssl.key.password: %w (readable: "+
			"PBE-SHA1-3DES, or PBES2 with PBKDF2-HMAC-SHA256 or -SHA1, or scrypt, and AES-CBC or 3DES-CBC)", err)
	}
	plain, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("ssl.keystore: the decrypted private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: plain}), nil
}
