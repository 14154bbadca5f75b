package zkbackend

import (
	"github.com/kzadmin/kzadmin/security/acl"
)

// ACLs reads and writes Kafka's ACL znodes (/kafka-acl,
// /kafka-acl-extended) with their change notifications, as Kafka's
// AclAuthorizer does when kafka-acls runs against ZooKeeper.
func (b *Backend) ACLs() acl.Manager { return acl.NewStore(b.zk) }
