package security

import (
	"fmt"
	"strings"

	"github.com/kzadmin/kzadmin/security/acl"
)

// AclAuthorizerClass is the authorizer.class.name of Kafka's ZooKeeper
// ACL authorizer, which kzadmind provides. The old name,
// kafka.security.auth.SimpleAclAuthorizer, is accepted too.
const AclAuthorizerClass = "kafka.security.authorizer.AclAuthorizer"

// AuthorizerSettings reads authorizer.class.name, super.users and
// allow.everyone.if.no.acl.found. enabled is false when no authorizer is
// configured (everything is allowed, as in Kafka).
func AuthorizerSettings(props Getter) (enabled bool, opts acl.Options, err error) {
	class, _ := props("authorizer.class.name")
	switch strings.TrimSpace(class) {
	case "":
		return false, opts, nil
	case AclAuthorizerClass, "kafka.security.auth.SimpleAclAuthorizer":
	default:
		return false, opts, fmt.Errorf("authorizer.class.name=%s: only %s is supported", class, AclAuthorizerClass)
	}
	if v, ok := props("super.users"); ok {
		su, valid := acl.ParseSuperUsers(v)
		if !valid {
			return false, opts, fmt.Errorf("super.users=%q: want <type>:<name> separated by ';'", v)
		}
		opts.SuperUsers = su
	}
	if v, ok := props("allow.everyone.if.no.acl.found"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			opts.AllowEveryoneIfNoACLFound = true
		case "false":
		default:
			return false, opts, fmt.Errorf("allow.everyone.if.no.acl.found=%q: want true or false", v)
		}
	}
	return true, opts, nil
}
