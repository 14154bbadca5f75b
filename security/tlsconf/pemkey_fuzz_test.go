package tlsconf

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"strings"
	"testing"
)

// Throwaway EC keys encrypted under "fuzz-pass" by openssl 3: PBE-SHA1-3DES
// and PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC, 16 iterations).
const (
	fuzzSeedPBE3DES = `-----BEGIN ENCRYPTED PRIVATE KEY-----
MIGxMBwGCiqGSIb3DQEMAQMwDgQIgvuTpUPDwYICAggABIGQrFkFTauR7j5kQ6ex
0ynNwFQOBQvx8T3WbYMhGUlbfdTIhthps+cxqs5KT8OMBR3jrsQP61UY98c+yqaH
Wmo7kCjbUISRjajNu2uB5AOdULB0yx70J6rtZ4PnAP2UTH6YH2vX7TzafC7Cfkfx
Sl7/uik1kIaGNzM7qq/ahG/txq1Xpskeklmj/H3Pfg531A3J
-----END ENCRYPTED PRIVATE KEY-----
`
	fuzzSeedPBES2 = `-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHrMFYGCSqGSIb3DQEFDTBJMCgGCSqGSIb3DQEFDDAbBAgyJbYyBgdcLAIBEDAM
BggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQU33gfcpt3AU6UmrZWYNTYgSBkN0L
fjIh5bCyenyacBMopN0Ppw5r2mengBWnY2QFsBD4MT8YRTpf1w38d5BpwJZT8Rja
vaS7AIgXQoCetKpvKu3FjTZ1YsYHpMNv0+62A2C9XyEsWjnrURdNsIgTVhgYxWHj
yXUUgjpY/PGWmyx/kDgSiHAQiYl8MwbyaCgU0cdrw5T67AC5c6DDnzE2fbUPxA==
-----END ENCRYPTED PRIVATE KEY-----
`
)

// TestFuzzSeedsDecrypt: the seeds open with their password, so the fuzzer
// starts from keys that decrypt.
func TestFuzzSeedsDecrypt(t *testing.T) {
	for _, seed := range []string{fuzzSeedPBE3DES, fuzzSeedPBES2} {
		if _, err := decryptedKeyPEM([]byte(seed), "fuzz-pass"); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzDecryptedKeyPEM: whatever an encrypted key's bytes and password,
// decryptedKeyPEM returns an error or one PEM private key crypto/x509
// parses, and never panics. Inputs whose key derivation is merely slow
// (within the production bounds) are skipped to keep the fuzzer fast.
func FuzzDecryptedKeyPEM(f *testing.F) {
	for _, seed := range []string{fuzzSeedPBE3DES, fuzzSeedPBES2} {
		blk, _ := pem.Decode([]byte(seed))
		f.Add(blk.Bytes, "fuzz-pass")
		f.Add(blk.Bytes, "wrong")
	}
	f.Fuzz(func(t *testing.T, der []byte, password string) {
		if slowKDF(der) {
			t.Skip()
		}
		out, err := decryptedKeyPEM(pem.EncodeToMemory(&pem.Block{Type: encryptedKeyType, Bytes: der}), password)
		if err != nil {
			return
		}
		blk, rest := pem.Decode(out)
		if blk == nil || blk.Type != "PRIVATE KEY" || len(rest) != 0 {
			t.Fatalf("decrypted to %q", out)
		}
		if _, err := x509.ParsePKCS8PrivateKey(blk.Bytes); err != nil {
			t.Fatalf("decrypted key does not parse: %v", err)
		}
	})
}

// slowKDF reports whether der asks for more than a few thousand rounds of
// key derivation.
func slowKDF(der []byte) bool {
	const fast = 5000
	var info encryptedPrivateKeyInfo
	if _, err := asn1.Unmarshal(der, &info); err != nil {
		return false
	}
	var p12 pkcs12PBEParams
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &p12); err == nil && p12.Iterations > fast {
		return true
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return false
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KeyDerivationFunc.Parameters.FullBytes, &kdf); err == nil && kdf.Iterations > fast {
		return true
	}
	var sc scryptParams
	if _, err := asn1.Unmarshal(params.KeyDerivationFunc.Parameters.FullBytes, &sc); err == nil &&
		(sc.N > 1<<14 || sc.R > 16 || sc.P > 16 || sc.N*sc.R*sc.P > 1<<14) {
		return true
	}
	return false
}

// TestKDFBounds: a key whose derivation asks for more iterations than
// maxPBEIterations, in either scheme, is refused before any is run.
func TestKDFBounds(t *testing.T) {
	reencode := func(t *testing.T, info encryptedPrivateKeyInfo, params any) []byte {
		t.Helper()
		raw, err := asn1.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		info.Algorithm.Parameters = asn1.RawValue{FullBytes: raw}
		der, err := asn1.Marshal(info)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: encryptedKeyType, Bytes: der})
	}
	decode := func(t *testing.T, seed string) encryptedPrivateKeyInfo {
		t.Helper()
		blk, _ := pem.Decode([]byte(seed))
		var info encryptedPrivateKeyInfo
		if _, err := asn1.Unmarshal(blk.Bytes, &info); err != nil {
			t.Fatal(err)
		}
		return info
	}
	t.Run("PBE-SHA1-3DES", func(t *testing.T) {
		info := decode(t, fuzzSeedPBE3DES)
		var p pkcs12PBEParams
		if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &p); err != nil {
			t.Fatal(err)
		}
		p.Iterations = maxPBEIterations + 1
		_, err := decryptedKeyPEM(reencode(t, info, p), "fuzz-pass")
		if err == nil || !strings.Contains(err.Error(), "PBE iteration count 10000001 out of range") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("PBKDF2", func(t *testing.T) {
		info := decode(t, fuzzSeedPBES2)
		var params pbes2Params
		if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
			t.Fatal(err)
		}
		var kdf pbkdf2Params
		if _, err := asn1.Unmarshal(params.KeyDerivationFunc.Parameters.FullBytes, &kdf); err != nil {
			t.Fatal(err)
		}
		kdf.Iterations = maxPBEIterations + 1
		raw, err := asn1.Marshal(kdf)
		if err != nil {
			t.Fatal(err)
		}
		params.KeyDerivationFunc.Parameters = asn1.RawValue{FullBytes: raw}
		_, err = decryptedKeyPEM(reencode(t, info, params), "fuzz-pass")
		if err == nil || !strings.Contains(err.Error(), "PBKDF2 iteration count 10000001 out of range") {
			t.Fatalf("got %v", err)
		}
	})
}
