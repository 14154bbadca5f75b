// Package security assembles kzadmind's Kafka-compatible security from
// Kafka's property names: per listener, TLS (SSL, SASL_SSL) and SASL
// (SASL_PLAINTEXT, SASL_SSL) for wire.Config; the ACL authorizer's
// settings; and the ZooKeeper ACL layout.
//
// The parts live in sub-packages: scram (credential format and the SCRAM
// exchange), sasl (GSSAPI over Kerberos, PLAIN, SCRAM over ZooKeeper
// credentials, JAAS parsing),
// tlsconf (ssl.* settings and the TLS principal), acl (the authorizer, its
// cache and the ACL store) and zkacl (ZooKeeper ACLs on created znodes).
//
// # Properties read
//
// Each listener key may be given for one listener as
// listener.name.<listener name, lower case>.<key>, which wins over the
// plain key, as in Kafka.
//
//	security protocol      from listener.security.protocol.map (the caller's)
//	ssl.keystore.type      PEM (unset), PKCS12 or JKS
//	ssl.keystore.location  PEM file: private key (PKCS#8, unencrypted) and chain; or a
//	                       PKCS12/JKS store with one private key (ssl.keystore.password,
//	                       ssl.key.password for a JKS key's own password)
//	ssl.keystore.key, ssl.keystore.certificate.chain   the same, inline
//	ssl.truststore.type    PEM (unset), PKCS12 or JKS (ssl.truststore.password)
//	ssl.truststore.location, ssl.truststore.certificates  CA certificates
//	ssl.client.auth        none | requested | required (SASL_SSL: prefixed key only)
//	ssl.enabled.protocols, ssl.cipher.suites, ssl.principal.mapping.rules
//	sasl.enabled.mechanisms               GSSAPI (default), PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
//	listener.name.<l>.plain.sasl.jaas.config  PlainLoginModule with user_<name>="<password>"
//	listener.name.<l>.gssapi.sasl.jaas.config Krb5LoginModule with keyTab and principal (kerberos.go)
//	sasl.kerberos.service.name            the brokers' principal name, for GSSAPI towards them
//	sasl.kerberos.principal.to.local.rules  DEFAULT only
//	kzadmin.krb5.conf                     krb5.conf (default $KRB5_CONFIG, else /etc/krb5.conf)
//	sasl.server.max.receive.size          default 524288
//	connection.failed.authentication.delay.ms  default 100
//	sasl.mechanism.inter.broker.protocol  the controller's own SASL mechanism to brokers (default GSSAPI)
//	listener.name.<l>.<mechanism>.sasl.jaas.config  its username and password, or Kerberos login (client.go)
//	ssl.endpoint.identification.algorithm https (default) checks broker host names
//	authorizer.class.name   kafka.security.authorizer.AclAuthorizer turns ACLs on
//	super.users             User:a;User:b
//	allow.everyone.if.no.acl.found        default false
//	zookeeper.set.acl       default false
package security
