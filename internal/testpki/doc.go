// Package testpki makes throwaway certificate authorities and
// certificates for tests: PEM bytes, files and tls values. Leaves are
// issued for 127.0.0.1 and localhost, so one leaf serves both kzadmind's
// listeners and a local Kafka broker's. Keys are ECDSA P-256 in
// unencrypted PKCS#8, the form Kafka's PEM keystores read without
// ssl.key.password, or encrypted PKCS#8 (EncryptedKeystorePEM), which they
// read with it.
//
// It is test support only: no production code imports it.
package testpki
