// Package interbroker holds the end-to-end test of kzadmind as the
// controller of real Kafka 3.9 brokers whose inter-broker listener is
// secured: kzadmind connects to the brokers with SASL (and TLS), the
// brokers reach kzadmind with SASL, and the broker→controller APIs pass
// the ACL authorizer's ClusterAction check for the brokers' principal.
// It starts JVMs, so it is skipped with KZADMIN_SKIP_HEAVY=1.
package interbroker
