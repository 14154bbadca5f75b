// Package kdc runs a real MIT Kerberos KDC (Debian's krb5-kdc and
// krb5-admin-server) for tests of Kerberos logins: kzadmin's SASL GSSAPI
// login to ZooKeeper, next to ZooKeeper servers and Kafka brokers logging
// in to the same realm. Each KDC keeps its database, keys, logs and the
// clients' krb5.conf in a directory of its own and listens on a free
// loopback port, so tests can run several side by side; nothing under
// /etc or /var is read or written.
package kdc
