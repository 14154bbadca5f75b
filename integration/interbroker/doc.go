// Package interbroker holds the end-to-end tests of kzadmind as the
// controller of real Kafka 3.9 brokers whose inter-broker or control-plane
// listener is secured: kzadmind connects to the brokers with SASL
// (SASL_PLAINTEXT, SASL_SSL) on the listener Kafka's controller would pick
// (control.plane.listener.name, else inter.broker.listener.name), the
// brokers reach kzadmind with SASL, and the broker→controller APIs pass
// the ACL authorizer's ClusterAction check for the brokers' principal.
// Those tests start JVMs, so they are skipped with KZADMIN_SKIP_HEAVY=1.
//
// It also checks the README's Security section: every properties example
// loads and builds kzadmind's listeners, authorizer and broker dialer, and
// every kzadmin command runs against a real ZooKeeper (no JVM broker, so
// these always run).
package interbroker
