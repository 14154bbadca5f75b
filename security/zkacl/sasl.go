package zkacl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// SASL to ZooKeeper, configured as Kafka's brokers are: a JAAS file
// (kzadmin.zookeeper.sasl.jaas.file, the brokers' own
// -Djava.security.auth.login.config file will do) whose section
// zookeeper.sasl.clientconfig (default "Client", as in ZooKeeper's client)
// names the login module.
//
// ZooKeeper's DigestLoginModule, with a username and password, logs in
// with DIGEST-MD5; the session then has the identity sasl:<username>, the
// brokers' when they log in as the same user.
//
// Java's Krb5LoginModule logs in with Kerberos (SASL GSSAPI) as its
// principal, from a keytab (useKeyTab, keyTab, principal) or from the
// ticket cache kinit filled (useTicketCache, ticketCache; else
// KRB5CCNAME, else /tmp/krb5cc_<uid>), with the realms of
// kzadmin.krb5.conf (Java's java.security.krb5.conf,
// default $KRB5_CONFIG, else /etc/krb5.conf). The service is
// <zookeeper.sasl.client.username>/<the server's host>, the host
// canonicalized (a reverse lookup of its address) unless
// zookeeper.sasl.client.canonicalize.hostname=false, or the whole of
// zookeeper.server.principal when set: ZooKeeper's own client's defaults
// and keys. The session's identity is the principal as
// the server maps it (kerberos.removeHostFromPrincipal and
// kerberos.removeRealmFromPrincipal on the server), the brokers' when they
// map to the same name.

// DigestLoginModule is ZooKeeper's login module for DIGEST-MD5.
const DigestLoginModule = "org.apache.zookeeper.server.auth.DigestLoginModule"

// krb5LoginModule is Java's Kerberos login module.
const krb5LoginModule = sasl.Krb5LoginModule

// The keys SASLFromConfig reads.
const (
	jaasFileKey    = "kzadmin.zookeeper.sasl.jaas.file"
	jaasSectionKey = "zookeeper.sasl.clientconfig"
	krb5ConfKey    = "kzadmin.krb5.conf"
	serviceNameKey = "zookeeper.sasl.client.username"
	canonicalKey   = "zookeeper.sasl.client.canonicalize.hostname"
	serverPrinKey  = "zookeeper.server.principal"
	// ZooKeeper's client default.
	defaultServiceName = "zookeeper"
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
		case sasl.IsKrb5LoginModule(e.Module):
			login, err := kerberosLogin(e.Options, v)
			if err != nil {
				return nil, fmt.Errorf("%s: section %s of %s: %w", jaasFileKey, section, path, err)
			}
			return login, nil
		}
	}
	return nil, fmt.Errorf("%s: section %s of %s has no %s or %s entry", jaasFileKey, section, path, DigestLoginModule, krb5LoginModule)
}

// kerberosLogin is the GSSAPI login of a Krb5LoginModule entry's options.
func kerberosLogin(opts map[string]string, v func(string) string) (*GSSAPILogin, error) {
	g := &GSSAPILogin{ServiceName: v(serviceNameKey), Canonicalize: true}
	if g.ServiceName == "" {
		g.ServiceName = defaultServiceName
	}
	if p := v(serverPrinKey); p != "" {
		// The realm is the KDC's to find (krb5.conf's domain_realm, else
		// the client's own).
		g.ServerPrincipal, _, _ = strings.Cut(p, "@")
	}
	if c := v(canonicalKey); c != "" {
		var err error
		if g.Canonicalize, err = strconv.ParseBool(c); err != nil {
			return nil, fmt.Errorf("%s=%q: not true or false", canonicalKey, c)
		}
	}
	ko, err := sasl.KerberosOptionsFromJAAS(opts, v(krb5ConfKey))
	if err != nil {
		return nil, err
	}
	if g.Login, err = sasl.NewKerberosLogin(ko); err != nil {
		return nil, err
	}
	return g, nil
}

// GSSAPILogin logs in to ZooKeeper with SASL GSSAPI (Kerberos) as its
// login's principal, asking each server for the service
// <ServiceName>/<its host>, or ServerPrincipal when set.
type GSSAPILogin struct {
	Login           *sasl.KerberosLogin
	ServiceName     string
	Canonicalize    bool
	ServerPrincipal string
}

// Name implements zkadmin.SASLMechanism.
func (*GSSAPILogin) Name() string { return sasl.GSSAPI }

// Close ends the Kerberos login (its ticket renewals), once no session
// connects with it any more.
func (l *GSSAPILogin) Close() { l.Login.Close() }

// Start implements zkadmin.SASLMechanism.
func (l *GSSAPILogin) Start(server string) (zkadmin.SASLExchange, []byte, error) {
	service := l.ServerPrincipal
	if service == "" {
		service = l.ServiceName + "/" + serviceHost(server, l.Canonicalize)
	}
	c := &sasl.GSSAPIClient{Tickets: l.Login, Service: service}
	first, err := c.Start()
	if err != nil {
		return nil, nil, err
	}
	return c, first, nil
}

// serviceHost is the host of the service principal for the server at
// addr: as ZooKeeper's client names it, the canonical name of the
// server's address (its reverse lookup), or the host as given when
// canonicalize is off or the lookup finds none.
func serviceHost(addr string, canonicalize bool) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if !canonicalize {
		return host
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	ip := host
	if net.ParseIP(host) == nil {
		ips, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil || len(ips) == 0 {
			return host
		}
		ip = ips[0]
	}
	names, err := net.DefaultResolver.LookupAddr(ctx, ip)
	if err != nil || len(names) == 0 {
		return host
	}
	return strings.TrimSuffix(names[0], ".")
}

// lookupTimeout bounds the lookups naming a server.
const lookupTimeout = 5 * time.Second

// DigestMD5Login logs in to ZooKeeper with DIGEST-MD5.
type DigestMD5Login struct{ Username, Password string }

// Name implements zkadmin.SASLMechanism.
func (DigestMD5Login) Name() string { return sasl.DigestMD5 }

// Start implements zkadmin.SASLMechanism.
func (l DigestMD5Login) Start(string) (zkadmin.SASLExchange, []byte, error) {
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
