package sasl

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// KerberosOptions say how a principal logs in, as Java's Krb5LoginModule
// options do: with a keytab (useKeyTab, keyTab, principal), or from a
// ticket cache that kinit filled (useTicketCache, ticketCache).
type KerberosOptions struct {
	// Krb5Conf is the krb5.conf file: the realms and their KDCs.
	Krb5Conf string
	// Principal is "name[/instance][@REALM]"; the realm defaults to
	// krb5.conf's default_realm. Required with Keytab; with TicketCache
	// it must be the cache's principal when given.
	Principal string
	// Keytab is the keytab file holding the principal's keys.
	Keytab string
	// TicketCache is a credential cache file, used when Keytab is empty.
	TicketCache string
}

// KerberosLogin is one principal's Kerberos login, shared by every
// connection that authenticates with it: the ticket-granting ticket is
// asked for at the first use (a keytab login renews it itself), and
// service tickets are kept until they expire. It is ServiceTickets for
// GSSAPIClient. Safe for concurrent use.
type KerberosLogin struct {
	mu  sync.Mutex
	cl  *client.Client
	tgt bool // the keytab login has been done
}

// NewKerberosLogin reads the configuration, the keytab or the ticket cache
// now, so that a missing or unreadable file is reported at start; the KDC
// is first asked when a connection logs in.
func NewKerberosLogin(o KerberosOptions) (*KerberosLogin, error) {
	cfg, err := config.Load(o.Krb5Conf)
	if err != nil {
		return nil, fmt.Errorf("kerberos: read %s: %w", o.Krb5Conf, err)
	}
	switch {
	case o.Keytab != "":
		if o.Principal == "" {
			return nil, errors.New("kerberos: a keytab login needs a principal")
		}
		kt, err := keytab.Load(o.Keytab)
		if err != nil {
			return nil, fmt.Errorf("kerberos: read keytab %s: %w", o.Keytab, err)
		}
		name, realm := splitPrincipal(o.Principal, cfg.LibDefaults.DefaultRealm)
		if realm == "" {
			return nil, fmt.Errorf("kerberos: principal %q has no realm and %s has no default_realm", o.Principal, o.Krb5Conf)
		}
		if !keytabHolds(kt, types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, name), realm) {
			return nil, fmt.Errorf("kerberos: keytab %s has no key for %s@%s", o.Keytab, name, realm)
		}
		cl := client.NewWithKeytab(name, realm, kt, cfg, client.DisablePAFXFAST(true))
		return &KerberosLogin{cl: cl}, nil
	case o.TicketCache != "":
		cc, err := credentials.LoadCCache(o.TicketCache)
		if err != nil {
			return nil, fmt.Errorf("kerberos: read ticket cache %s (kinit fills it): %w", o.TicketCache, err)
		}
		if o.Principal != "" {
			name, realm := splitPrincipal(o.Principal, cfg.LibDefaults.DefaultRealm)
			got := cc.GetClientPrincipalName().PrincipalNameString()
			if got != name || cc.GetClientRealm() != realm {
				return nil, fmt.Errorf("kerberos: ticket cache %s is %s@%s's, not %s@%s", o.TicketCache, got, cc.GetClientRealm(), name, realm)
			}
		}
		cl, err := client.NewFromCCache(cc, cfg, client.DisablePAFXFAST(true))
		if err != nil {
			return nil, fmt.Errorf("kerberos: ticket cache %s: %w", o.TicketCache, err)
		}
		return &KerberosLogin{cl: cl, tgt: true}, nil
	default:
		return nil, errors.New("kerberos: neither a keytab nor a ticket cache to log in with")
	}
}

// keytabHolds reports whether kt has any entry for the principal.
func keytabHolds(kt *keytab.Keytab, pn types.PrincipalName, realm string) bool {
	for _, e := range kt.Entries {
		if e.Principal.Realm == realm && strings.Join(e.Principal.Components, "/") == pn.PrincipalNameString() {
			return true
		}
	}
	return false
}

// splitPrincipal splits "name@REALM", the realm defaulting to def.
func splitPrincipal(p, def string) (name, realm string) {
	if i := strings.LastIndexByte(p, '@'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, def
}

// Principal is the logged-in principal, "name@REALM".
func (l *KerberosLogin) Principal() string {
	return l.cl.Credentials.CName().PrincipalNameString() + "@" + l.cl.Credentials.Domain()
}

// ServiceTicket implements ServiceTickets: it logs in when not yet
// logged in, and asks the KDC for a ticket unless one is kept.
func (l *KerberosLogin) ServiceTicket(spn string) (messages.Ticket, types.EncryptionKey, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.tgt {
		if err := l.cl.Login(); err != nil {
			return messages.Ticket{}, types.EncryptionKey{}, fmt.Errorf("log in as %s: %w", l.Principal(), err)
		}
		l.tgt = true
	}
	return l.cl.GetServiceTicket(spn)
}

// Client implements ServiceTickets.
func (l *KerberosLogin) Client() (string, types.PrincipalName) {
	return l.cl.Credentials.Domain(), l.cl.Credentials.CName()
}

// Close stops the keytab login's renewals and forgets its tickets.
func (l *KerberosLogin) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cl.Destroy()
}

// Krb5LoginModule is Java's Kerberos login module, which JAAS entries
// name for a Kerberos login; IBM's JVMs have their own, IBMKrb5LoginModule.
const (
	Krb5LoginModule    = "com.sun.security.auth.module.Krb5LoginModule"
	IBMKrb5LoginModule = "com.ibm.security.auth.module.Krb5LoginModule"
)

// IsKrb5LoginModule reports whether a JAAS entry's module logs in with
// Kerberos.
func IsKrb5LoginModule(module string) bool {
	return module == Krb5LoginModule || module == IBMKrb5LoginModule
}

// DefaultKrb5Conf is where Java and MIT Kerberos look for krb5.conf.
const DefaultKrb5Conf = "/etc/krb5.conf"

// KerberosOptionsFromJAAS reads a Krb5LoginModule entry's options:
// useKeyTab=true with keyTab and principal, or useTicketCache=true with
// ticketCache (else KRB5CCNAME's file, else /tmp/krb5cc_<uid>), as Java
// reads them. A login that would prompt for a password is refused.
// krb5Conf is the krb5.conf to use; empty means the first file of
// KRB5_CONFIG, else DefaultKrb5Conf.
func KerberosOptionsFromJAAS(opts map[string]string, krb5Conf string) (KerberosOptions, error) {
	ko := KerberosOptions{Krb5Conf: strings.TrimSpace(krb5Conf), Principal: opts["principal"]}
	if ko.Krb5Conf == "" {
		// MIT Kerberos' own variable, which kinit and klist read too.
		ko.Krb5Conf, _, _ = strings.Cut(os.Getenv("KRB5_CONFIG"), ":")
	}
	if ko.Krb5Conf == "" {
		ko.Krb5Conf = DefaultKrb5Conf
	}
	switch {
	case jaasTrue(opts["useKeyTab"]):
		if ko.Keytab = opts["keyTab"]; ko.Keytab == "" {
			return ko, fmt.Errorf("%s: useKeyTab=true without keyTab", Krb5LoginModule)
		}
		if ko.Principal == "" {
			return ko, fmt.Errorf("%s: useKeyTab=true without principal", Krb5LoginModule)
		}
	case jaasTrue(opts["useTicketCache"]):
		ko.TicketCache = ticketCachePath(opts["ticketCache"])
	default:
		return ko, fmt.Errorf("%s: neither useKeyTab=true (with keyTab and principal) nor useTicketCache=true; "+
			"kzadmin cannot prompt for a password", Krb5LoginModule)
	}
	return ko, nil
}

// jaasTrue reads a JAAS boolean option as Java's login modules do.
func jaasTrue(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "true") }

// ticketCachePath is the credential cache Krb5LoginModule reads: the
// ticketCache option, else KRB5CCNAME's file, else /tmp/krb5cc_<uid>.
func ticketCachePath(option string) string {
	if option != "" {
		return option
	}
	if env := os.Getenv("KRB5CCNAME"); env != "" {
		return strings.TrimPrefix(env, "FILE:")
	}
	return fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
}
