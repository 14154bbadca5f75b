// Package sasl provides the server side of the SASL mechanisms kzadmind's
// listener offers, as a Kafka broker does: GSSAPI (Kerberos,
// GSSAPIAcceptor, with the listener's keytab), PLAIN, checked against a
// configured user list (the user_<name>="<password>" options of the
// listener's PlainLoginModule JAAS config), and SCRAM-SHA-256/512, checked
// against the credentials Kafka stores in /config/users/<user>.
//
// Authenticator turns the enabled mechanisms into a wire.SASLConfig. The
// principal of an authenticated connection is User:<authorization id>, the
// user name, as Kafka's default principal builder gives it.
//
// SCRAM credentials are read from ZooKeeper at each authentication (one
// getData), so a credential added or changed with kafka-configs or
// `kzadmin configs` works on the next connection without a cache to keep
// in step; Kafka's brokers cache them and refresh on config change
// notifications, with the same effect.
//
// The client side (client.go) is for kzadmind's own connections to
// brokers on SASL listeners: Authenticate runs SaslHandshake v1 and
// SaslAuthenticate v1 with GSSAPI, PLAIN or SCRAM (scram.Client), and reports a
// broker's refusal as *AuthError with Kafka's error code.
//
// DigestMD5Client is the client side of DIGEST-MD5 (RFC 2831, qop auth)
// and GSSAPIClient that of GSSAPI with Kerberos (RFC 4752, mutual
// authentication, no security layer), which kzadmin logs in to ZooKeeper
// with; KerberosLogin is the Kerberos login (keytab or ticket cache, over
// github.com/jcmturner/gokrb5) that GSSAPIClient's service tickets come
// from, and ParseJAASFile reads the JAAS file that names the login
// (security/zkacl).
package sasl
