package zkacl

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// SASL to ZooKeeper, configured as Kafka's brokers are: a JAAS file
// (kzadmin.zookeeper.sasl.jaas.file, the brokers' own
// -Djava.security.auth.login.config file will do) whose section
// zookeeper.sasl.clientconfig (default "Client", as in ZooKeeper's client)
// names the login module. ZooKeeper's DigestLoginModule, with a username
// and password, logs in with DIGEST-MD5; the session then has the identity
// sasl:<username>, the brokers' when they log in as the same user.
// Kerberos (Krb5LoginModule, GSSAPI) is refused as not supported.

// DigestLoginModule is ZooKeeper's login module for DIGEST-MD5.
const DigestLoginModule = "org.apache.zookeeper.server.auth.DigestLoginModule"

// The JVMs' Kerberos login modules.
const (
	krb5LoginModule    = "com.sun.security.auth.module.Krb5LoginModule"
	ibmKrb5LoginModule = "com.ibm.security.auth.module.Krb5LoginModule"
)

// The keys SASLFromConfig reads.
const (
	jaasFileKey    = "kzadmin.zookeeper.sasl.jaas.file"
	jaasSectionKey = "zookeeper.sasl.clientconfig"
	// defaultJAASSection is ZooKeeper's client default.
	defaultJAASSection = "Client"
	// ZooKeeper's DIGEST-MD5 server is "zookeeper/zk-sasl-md5".
	zkSASLProtocol   = "zookeeper"
	zkSASLServerName = "zk-sasl-md5"
)

// SASLFromConfig returns the SASL login the configuration asks for, or
// nil when kzadmin.zookeeper.sasl.jaas.file is unset. get reads a
// configuration key.
func SASLFromConfig(get func(string) (string, bool)) (zkadmin.SASLMechanism, error) {
	v := func(key string) string {
		s, _ := get(key)
		return strings.TrimSpace(s)
	}
	path := v(jaasFileKey)
	if path == "" {
		return nil, nil
	}
	section := v(jaasSectionKey)
	if section == "" {
		section = defaultJAASSection
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", jaasFileKey, err)
	}
	sections, err := sasl.ParseJAASFile(string(text), path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", jaasFileKey, err)
	}
	entries, ok := sections[section]
	if !ok {
		return nil, fmt.Errorf("%s: %s has no section %q (%s)", jaasFileKey, path, section, jaasSectionKey)
	}
	for _, e := range entries {
		switch {
		case e.Module == DigestLoginModule:
			user, password := e.Options["username"], e.Options["password"]
			if user == "" {
				return nil, fmt.Errorf("%s: section %s of %s: %s has no username", jaasFileKey, section, path, DigestLoginModule)
			}
			return DigestMD5Login{Username: user, Password: password}, nil
		case e.Module == krb5LoginModule || e.Module == ibmKrb5LoginModule:
			return nil, fmt.Errorf("%s: section %s of %s: Kerberos (GSSAPI) to ZooKeeper is not supported; "+
				"DIGEST-MD5 (%s) or a TLS client certificate are", jaasFileKey, section, path, DigestLoginModule)
		}
	}
	return nil, fmt.Errorf("%s: section %s of %s has no %s entry", jaasFileKey, section, path, DigestLoginModule)
}

// DigestMD5Login logs in to ZooKeeper with DIGEST-MD5.
type DigestMD5Login struct{ Username, Password string }

// Name implements zkadmin.SASLMechanism.
func (DigestMD5Login) Name() string { return sasl.DigestMD5 }

// Start implements zkadmin.SASLMechanism.
func (l DigestMD5Login) Start() (zkadmin.SASLExchange, []byte, error) {
	c := &sasl.DigestMD5Client{Username: l.Username, Password: l.Password, Protocol: zkSASLProtocol, ServerName: zkSASLServerName}
	first, err := c.Start()
	if err != nil {
		return nil, nil, err
	}
	return c, first, nil
}

// errNoIdentity is RequireIdentity's refusal.
var errNoIdentity = errors.New("zookeeper.set.acl=true needs an identity for the znodes kzadmin creates: " +
	"kzadmin.zookeeper.digest=user:password, a TLS client certificate (zookeeper.ssl.keystore.location), " +
	"or a SASL login (" + jaasFileKey + ")")
