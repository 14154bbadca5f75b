package zkacl

import (
	"strings"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// SensitiveRootPaths are the prefixes whose znodes are not world-readable
// when ACLs are set.
func SensitiveRootPaths() []string {
	return []string{
		znodes.ConfigEntityTypePath(znodes.EntityUsers),
		znodes.ConfigEntityTypePath(znodes.EntityBrokers),
		znodes.DelegationTokensPath,
	}
}

// IsSensitive reports whether path lies under a sensitive prefix.
func IsSensitive(path string) bool {
	for _, p := range SensitiveRootPaths() {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// DefaultACL is Kafka's ZkData.defaultAcls for one path.
func DefaultACL(setACL bool, path string) []zkadmin.ACL {
	if !setACL || path == znodes.ConsumersPath {
		return zkadmin.OpenACL()
	}
	acl := zkadmin.CreatorAllACL()
	if !IsSensitive(path) {
		acl = append(acl, zkadmin.WorldReadACL()...)
	}
	return acl
}

// ForOptions returns the function for zkadmin.Options.ACL.
func ForOptions(setACL bool) func(path string) []zkadmin.ACL {
	return func(path string) []zkadmin.ACL { return DefaultACL(setACL, path) }
}

// DigestAuth is the session authentication kzadmin.zookeeper.digest
// ("user:password") asks for: ZooKeeper's digest scheme, the identity that
// owns the znodes created under zookeeper.set.acl. Blank means none.
func DigestAuth(digest string) []zkadmin.Auth {
	if strings.TrimSpace(digest) == "" {
		return nil
	}
	return []zkadmin.Auth{{Scheme: "digest", Credentials: []byte(strings.TrimSpace(digest))}}
}

// ConnectOptions sets the ACLs and authentication of o from the
// configuration's zookeeper.set.acl and kzadmin.zookeeper.digest, as
// kzadmind and the kzadmin CLI both connect.
func ConnectOptions(o *zkadmin.Options, setACL bool, digest string) {
	o.ACL = ForOptions(setACL)
	o.Auth = DigestAuth(digest)
}

// HasIdentity reports whether a session connected with o has an identity
// of its own for ZooKeeper's "auth" ACLs: a digest, the x509 subject of a
// TLS client certificate, or a SASL login.
func HasIdentity(o zkadmin.Options) bool {
	for _, a := range o.Auth {
		if a.Scheme == "digest" && len(a.Credentials) > 0 {
			return true
		}
	}
	return o.SASL != nil || (o.TLS != nil && (len(o.TLS.Certificates) > 0 || o.TLS.GetClientCertificate != nil))
}

// RequireIdentity refuses zookeeper.set.acl=true without an identity, as
// Kafka's brokers refuse to start: the znodes would belong to no one, and
// ZooKeeper refuses such ACLs (InvalidACL) at the first create.
func RequireIdentity(setACL bool, o zkadmin.Options) error {
	if !setACL || HasIdentity(o) {
		return nil
	}
	return errNoIdentity
}
