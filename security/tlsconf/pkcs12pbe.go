package tlsconf

import (
	"crypto/cipher"
	"crypto/des"
	"crypto/sha1"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"unicode/utf16"
)

// oidPBEWithSHAAnd3KeyTripleDESCBC names PKCS#12's password-based 3DES
// (RFC 7292, appendix C): the scheme of `openssl pkcs8 -topk8 -v1
// PBE-SHA1-3DES`, the encrypted PEM key Kafka's own tests
// use, and one that Kafka on Java 17 reads (it did not read OpenSSL's
// default PBES2 key when tested).
var oidPBEWithSHAAnd3KeyTripleDESCBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 3}

// maxPBEIterations bounds the key derivation of a damaged or hostile file.
const maxPBEIterations = 10_000_000

// errIncorrectKeyPassword: the decryption gave no valid private key.
var errIncorrectKeyPassword = errors.New("incorrect password")

// encryptedPrivateKeyInfo is PKCS#8's EncryptedPrivateKeyInfo (RFC 5208).
type encryptedPrivateKeyInfo struct {
	Algorithm     pkix.AlgorithmIdentifier
	EncryptedData []byte
}

// pkcs12PBEParams are the parameters of a PKCS#12 PBE algorithm.
type pkcs12PBEParams struct {
	Salt       []byte
	Iterations int
}

// pkcs12PBEScheme reports whether der, an EncryptedPrivateKeyInfo, is
// encrypted with pbeWithSHAAnd3-KeyTripleDES-CBC.
func pkcs12PBEScheme(der []byte) bool {
	var info encryptedPrivateKeyInfo
	rest, err := asn1.Unmarshal(der, &info)
	return err == nil && len(rest) == 0 && info.Algorithm.Algorithm.Equal(oidPBEWithSHAAnd3KeyTripleDESCBC)
}

// decryptPKCS12PBEKey decrypts an EncryptedPrivateKeyInfo encrypted with
// pbeWithSHAAnd3-KeyTripleDES-CBC and parses the PKCS#8 key inside.
func decryptPKCS12PBEKey(der []byte, password string) (any, error) {
	var info encryptedPrivateKeyInfo
	if _, err := asn1.Unmarshal(der, &info); err != nil {
		return nil, fmt.Errorf("encrypted private key: %w", err)
	}
	var params pkcs12PBEParams
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("PBE parameters: %w", err)
	}
	if params.Iterations < 1 || params.Iterations > maxPBEIterations {
		return nil, fmt.Errorf("PBE iteration count %d out of range [1, %d]", params.Iterations, maxPBEIterations)
	}
	data := info.EncryptedData
	if len(data) == 0 || len(data)%des.BlockSize != 0 {
		return nil, fmt.Errorf("encrypted private key of %d bytes is not whole 3DES blocks", len(data))
	}
	pass := bmpPassword(password)
	key := pkcs12KDF(1, params.Salt, pass, params.Iterations, 24)
	iv := pkcs12KDF(2, params.Salt, pass, params.Iterations, des.BlockSize)
	block, err := des.NewTripleDESCipher(key)
	if err != nil {
		return nil, err
	}
	plain := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, data)
	n := int(plain[len(plain)-1])
	if n < 1 || n > des.BlockSize {
		return nil, errIncorrectKeyPassword
	}
	for _, b := range plain[len(plain)-n:] {
		if int(b) != n {
			return nil, errIncorrectKeyPassword
		}
	}
	k, err := x509.ParsePKCS8PrivateKey(plain[:len(plain)-n])
	if err != nil {
		// A wrong key leaves valid padding about once in 256 tries.
		return nil, errIncorrectKeyPassword
	}
	return k, nil
}

// bmpPassword is a password as PKCS#12 feeds it to its key derivation:
// UTF-16, big-endian, with a two-byte terminator (RFC 7292, appendix B.1).
func bmpPassword(password string) []byte {
	units := utf16.Encode([]rune(password))
	out := make([]byte, 0, 2*len(units)+2)
	for _, u := range units {
		out = append(out, byte(u>>8), byte(u))
	}
	return append(out, 0, 0)
}

// pkcs12KDF is PKCS#12's key derivation with SHA-1 (RFC 7292, appendix
// B.2): n bytes of key material for purpose id (1 key, 2 IV, 3 MAC).
func pkcs12KDF(id byte, salt, password []byte, iterations, n int) []byte {
	const v, u = 64, sha1.Size // SHA-1's block and digest sizes
	fill := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		out := make([]byte, v*((len(b)+v-1)/v))
		for i := range out {
			out[i] = b[i%len(b)]
		}
		return out
	}
	d := make([]byte, v)
	for i := range d {
		d[i] = id
	}
	in := append(fill(salt), fill(password)...)
	one := big.NewInt(1)
	modulus := new(big.Int).Lsh(one, 8*v)
	var out []byte
	for len(out) < n {
		h := sha1.New()
		h.Write(d)
		h.Write(in)
		a := h.Sum(nil)
		for range iterations - 1 {
			s := sha1.Sum(a)
			a = s[:]
		}
		out = append(out, a...)
		if len(out) >= n {
			break
		}
		// Each v-byte block of in becomes (block + B + 1) mod 2^(8v),
		// where B is a repeated to v bytes.
		b := new(big.Int).SetBytes(fill(a)[:v])
		b.Add(b, one)
		for j := 0; j < len(in); j += v {
			blk := new(big.Int).SetBytes(in[j : j+v])
			blk.Add(blk, b).Mod(blk, modulus)
			blk.FillBytes(in[j : j+v])
		}
	}
	return out[:n]
}

// OIDs of PKCS#5 v2 (RFC 8018) and scrypt (RFC 7914), whose parameters
// kdfCostError bounds before the PBES2 library runs them.
var (
	oidPBES2  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidScrypt = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 11591, 4, 11}
)

// Bounds on scrypt's parameters: OpenSSL's defaults are N 16384, r 8,
// p 1. Scrypt takes N·r·128 bytes of memory (256 MiB at most here) and
// time in proportion to N·r·p.
const (
	maxScryptN   = 1 << 20
	maxScryptR   = 32
	maxScryptP   = 16
	maxScryptNR  = 1 << 21
	maxScryptNRP = 1 << 22
)

type pbes2Params struct {
	KeyDerivationFunc pkix.AlgorithmIdentifier
	EncryptionScheme  pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt       asn1.RawValue
	Iterations int
	KeyLength  int                      `asn1:"optional"`
	PRF        pkix.AlgorithmIdentifier `asn1:"optional"`
}

type scryptParams struct {
	Salt      []byte
	N, R, P   int
	KeyLength int `asn1:"optional"`
}

// kdfCostError refuses an encrypted key whose key derivation would take
// too long or too much memory: a damaged or hostile file must not hang or
// exhaust the process that reads its configuration. Keys it cannot parse
// pass, for the decryption to name what is wrong.
func kdfCostError(der []byte) error {
	var info encryptedPrivateKeyInfo
	if _, err := asn1.Unmarshal(der, &info); err != nil || !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil
	}
	kdf := params.KeyDerivationFunc
	switch {
	case kdf.Algorithm.Equal(oidPBKDF2):
		var p pbkdf2Params
		if _, err := asn1.Unmarshal(kdf.Parameters.FullBytes, &p); err == nil &&
			(p.Iterations < 1 || p.Iterations > maxPBEIterations) {
			return fmt.Errorf("PBKDF2 iteration count %d out of range [1, %d]", p.Iterations, maxPBEIterations)
		}
	case kdf.Algorithm.Equal(oidScrypt):
		var p scryptParams
		if _, err := asn1.Unmarshal(kdf.Parameters.FullBytes, &p); err == nil &&
			(p.N < 2 || p.N > maxScryptN || p.R < 1 || p.R > maxScryptR || p.P < 1 || p.P > maxScryptP ||
				p.N*p.R > maxScryptNR || p.N*p.R*p.P > maxScryptNRP) {
			return fmt.Errorf("scrypt parameters N=%d r=%d p=%d out of range (N up to %d, r up to %d, p up to %d, "+
				"N·r up to %d, N·r·p up to %d)", p.N, p.R, p.P, maxScryptN, maxScryptR, maxScryptP, maxScryptNR, maxScryptNRP)
		}
	}
	return nil
}
