// Package zkacl gives the ZooKeeper ACLs Kafka puts on the znodes it
// creates (ZkData.defaultAcls, reference znodes.md §0.6), for
// zkadmin.Options.ACL:
//
//   - zookeeper.set.acl=false (the default): every znode is open
//     (world:anyone, all permissions).
//   - zookeeper.set.acl=true: the creator's identities get all
//     permissions (the "auth" scheme), and everyone may read, except under
//     the sensitive prefixes /config/users, /config/brokers and
//     /delegation_token/tokens (SCRAM credentials, encrypted broker
//     passwords, delegation tokens), which only the creator may read.
//     /consumers itself stays open, because old consumers write under it.
//
// Paths are relative to the chroot, as Kafka's are. Like Kafka's, the
// sensitive test is a string prefix, so /config/usersX counts as well.
//
// A secure layout needs an authenticated ZooKeeper session: ZooKeeper
// refuses the "auth" scheme (InvalidACL) when the session has no
// identity. kzadmin authenticates with the digest scheme
// (zkadmin.Options.Auth), with a TLS client certificate (zookeeper.ssl.*,
// the identity x509:<its subject DN>), or with SASL DIGEST-MD5 from the
// brokers' JAAS file (SASLFromConfig, zkadmin.Options.SASL: the identity
// sasl:<user>, shared with brokers logged in as the same user), or with
// Kerberos (SASL GSSAPI) from the same file's Krb5LoginModule (the
// identity sasl:<principal> as the servers map it).
//
// Migrate sets these ACLs (or open ones) on the znodes of a cluster that
// already exists, as Kafka's zookeeper-security-migration tool does.
package zkacl
