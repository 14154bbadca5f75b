// Package acl is Kafka's ZooKeeper ACL authorizer (kafka.security.authorizer
// .AclAuthorizer, 3.x) for kzadmind: the ACL model, the pure decision
// rules, the cache of ACLs read from ZooKeeper and kept current through
// Kafka's change notifications, and the store that lists, adds and removes
// ACLs in Kafka's format.
//
// # Storage (reference znodes.md §2.18)
//
// Literal patterns live at /kafka-acl/<ResourceType>/<name>, prefixed ones
// at /kafka-acl-extended/prefixed/<ResourceType>/<name>, each holding
// {"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow",
// "operation":"Read","host":"*"}]}. Every change is followed by a
// notification: /kafka-acl-changes/acl_changes_<seq> holding
// "<RESOURCE_TYPE>:<name>" for literal patterns, and
// /kafka-acl-extended-changes/acl_changes_<seq> holding a small JSON
// object for the others. Notifications say "re-read this resource"; the
// cache re-reads the resource znode, so a lost or repeated notification
// does no harm. Notifications older than 15 minutes are purged, as every
// Kafka broker does.
//
// # Decisions (Kafka's AclAuthorizer.authorizeAction)
//
//   - A principal listed in super.users is allowed everything.
//   - The ACLs that apply to a resource are its literal ones, the literal
//     wildcard "*" ones of its type, and the prefixed ones whose prefix
//     starts its name.
//   - If none apply at all (to anyone), allow.everyone.if.no.acl.found
//     decides (false by default).
//   - Otherwise a matching Deny wins over any Allow; without one, a
//     matching Allow is needed. An entry matches when its principal is the
//     client's or User:*, its host is the client's address or *, and its
//     operation is the one checked or All.
//   - Allowing Read, Write, Delete or Alter implies Describe; allowing
//     AlterConfigs implies DescribeConfigs. Denials imply nothing.
//
// Hosts are compared as IP addresses, so "::1" and "0:0:0:0:0:0:0:1"
// (Java's spelling) match. When the client address is unknown, Deny
// entries for any host apply and Allow entries only for "*".
package acl
