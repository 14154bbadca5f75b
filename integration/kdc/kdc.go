package kdc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kzadmin/kzadmin/integration/childproc"
)

// Options say where and for which realm a KDC runs.
type Options struct {
	// Dir is the KDC's own directory (created if missing). Required.
	Dir string
	// Realm defaults to EXAMPLE.COM.
	Realm string
	// StartTimeout bounds the wait for the KDC to serve; zero means 30s.
	StartTimeout time.Duration
}

// KDC is one running KDC.
type KDC struct {
	opts Options
	port int
	proc *childproc.Process
}

// The enctypes every side of the tests takes: Java 17's defaults and
// gokrb5's both include them.
const enctypes = "aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96"

// programs are the krb5 tools Start needs.
var programs = []string{"krb5kdc", "kdb5_util", "kadmin.local"}

// Start creates the realm's database and starts krb5kdc on a free
// loopback port, waiting until it accepts connections.
func Start(ctx context.Context, o Options) (*KDC, error) {
	if o.Dir == "" {
		return nil, errors.New("kdc: no directory")
	}
	if o.Realm == "" {
		o.Realm = "EXAMPLE.COM"
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 30 * time.Second
	}
	for _, p := range programs {
		if _, err := lookPath(p); err != nil {
			return nil, fmt.Errorf("kdc: %s not found (install krb5-kdc and krb5-admin-server: scripts/setup): %w", p, err)
		}
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("kdc: %w", err)
	}
	o.Dir = dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("kdc: %w", err)
	}
	ports, err := childproc.FreePorts(1)
	if err != nil {
		return nil, fmt.Errorf("kdc: %w", err)
	}
	k := &KDC{opts: o, port: ports[0]}
	if err := k.writeConfigs(); err != nil {
		return nil, err
	}
	master := make([]byte, 16)
	if _, err := rand.Read(master); err != nil {
		return nil, fmt.Errorf("kdc: master password: %w", err)
	}
	if err := k.run(ctx, "kdb5_util", "-r", o.Realm, "create", "-s", "-P", hex.EncodeToString(master)); err != nil {
		return nil, err
	}
	k.proc, err = childproc.Start(childproc.Spec{
		Path:     "krb5kdc",
		Args:     []string{"-n", "-r", o.Realm, "-P", filepath.Join(dir, "krb5kdc.pid")},
		Dir:      dir,
		LogPath:  filepath.Join(dir, "krb5kdc.out"),
		OwnGroup: true,
		Env:      k.Env(),
	})
	if err != nil {
		return nil, fmt.Errorf("kdc: %w", err)
	}
	err = k.proc.Until(ctx, o.StartTimeout, 20*time.Millisecond, func() error {
		c, err := net.DialTimeout("tcp", k.Addr(), time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	})
	if err != nil {
		k.Stop()
		return nil, fmt.Errorf("kdc: not serving on %s: %w\n%s", k.Addr(), err, k.logTail())
	}
	return k, nil
}

// lookPath finds a program in PATH or in the sbin directories Debian
// installs the KDC's programs into.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin"} {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// writeConfigs writes the KDC's profile (kdc.conf) and the clients'
// krb5.conf, keeping every file the KDC uses in its directory.
func (k *KDC) writeConfigs() error {
	d, r := k.opts.Dir, k.opts.Realm
	kdcConf := fmt.Sprintf(`[kdcdefaults]
  kdc_listen = 127.0.0.1:%[3]d
  kdc_tcp_listen = 127.0.0.1:%[3]d

[realms]
  %[2]s = {
    database_name = %[1]s/principal
    key_stash_file = %[1]s/stash
    acl_file = %[1]s/kadm5.acl
    kdc_listen = 127.0.0.1:%[3]d
    kdc_tcp_listen = 127.0.0.1:%[3]d
    kadmind_listen = 127.0.0.1:0
    max_life = 1d
    max_renewable_life = 7d
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
  }

[logging]
  kdc = FILE:%[1]s/kdc.log
  admin_server = FILE:%[1]s/kadmin.log
  default = FILE:%[1]s/krb5lib.log
`, d, r, k.port)
	krb5Conf := fmt.Sprintf(`[libdefaults]
  default_realm = %[1]s
  dns_lookup_kdc = false
  dns_lookup_realm = false
  rdns = false
  udp_preference_limit = 1
  ticket_lifetime = 24h
  forwardable = true
  default_tkt_enctypes = %[3]s
  default_tgs_enctypes = %[3]s
  permitted_enctypes = %[3]s

[realms]
  %[1]s = {
    kdc = 127.0.0.1:%[2]d
  }

[domain_realm]
  localhost = %[1]s
  .localhost = %[1]s
`, r, k.port, enctypes)
	for name, text := range map[string]string{"kdc.conf": kdcConf, "krb5.conf": krb5Conf, "kadm5.acl": ""} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o600); err != nil {
			return fmt.Errorf("kdc: write %s: %w", name, err)
		}
	}
	return nil
}

// run runs one of the krb5 admin programs against this KDC's files.
func (k *KDC) run(ctx context.Context, name string, args ...string) error {
	path, err := lookPath(name)
	if err != nil {
		return fmt.Errorf("kdc: %s: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), k.Env()...)
	cmd.Dir = k.opts.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("kdc: %s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// Realm is the KDC's realm.
func (k *KDC) Realm() string { return k.opts.Realm }

// Addr is where the KDC serves, over TCP and UDP.
func (k *KDC) Addr() string { return "127.0.0.1:" + strconv.Itoa(k.port) }

// Krb5Conf is the clients' krb5.conf: this realm, its KDC, TCP only.
func (k *KDC) Krb5Conf() string { return filepath.Join(k.opts.Dir, "krb5.conf") }

// Env points the krb5 programs (kinit, kadmin.local, krb5kdc) at this
// KDC's files.
func (k *KDC) Env() []string {
	return []string{"KRB5_CONFIG=" + k.Krb5Conf(), "KRB5_KDC_PROFILE=" + filepath.Join(k.opts.Dir, "kdc.conf")}
}

// LogPath is the KDC's log.
func (k *KDC) LogPath() string { return filepath.Join(k.opts.Dir, "kdc.log") }

// principal adds the realm to a name that has none.
func (k *KDC) principal(name string) string {
	if strings.Contains(name, "@") {
		return name
	}
	return name + "@" + k.opts.Realm
}

// AddPrincipal adds principal with a random key and exports its key to
// keytab (added to the keytab when it exists).
func (k *KDC) AddPrincipal(ctx context.Context, principal, keytab string) error {
	p := k.principal(principal)
	if err := k.run(ctx, "kadmin.local", "-r", k.opts.Realm, "-q", "addprinc -randkey "+p); err != nil {
		return fmt.Errorf("kdc: add principal %q: %w", p, err)
	}
	if err := k.run(ctx, "kadmin.local", "-r", k.opts.Realm, "-q", "ktadd -k "+keytab+" "+p); err != nil {
		return fmt.Errorf("kdc: export %q to %s: %w", p, keytab, err)
	}
	return nil
}

// AddPrincipalWithPassword adds principal with a password, for kinit.
func (k *KDC) AddPrincipalWithPassword(ctx context.Context, principal, password string) error {
	p := k.principal(principal)
	if err := k.run(ctx, "kadmin.local", "-r", k.opts.Realm, "-q", "addprinc -pw "+password+" "+p); err != nil {
		return fmt.Errorf("kdc: add principal %q: %w", p, err)
	}
	return nil
}

// Stop stops the KDC: SIGTERM, then a kill after a grace period.
func (k *KDC) Stop() error {
	if k.proc == nil {
		return nil
	}
	return k.proc.Stop(syscall.SIGTERM, 5*time.Second)
}

// logTail is the end of the KDC's logs, for errors.
func (k *KDC) logTail() string {
	var b strings.Builder
	for _, name := range []string{"krb5kdc.out", "kdc.log"} {
		data, err := os.ReadFile(filepath.Join(k.opts.Dir, name))
		if err != nil {
			continue
		}
		if len(data) > 2000 {
			data = data[len(data)-2000:]
		}
		fmt.Fprintf(&b, "--- %s\n%s", name, data)
	}
	return b.String()
}
