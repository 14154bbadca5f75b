package zkbackend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security/tlsconf"
	"github.com/kzadmin/kzadmin/security/zkacl"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// Options configure Open.
type Options struct {
	// Connect is "host:port[,host:port...][/chroot]".
	Connect string
	// Config is the static configuration (limits, num.partitions,
	// default.replication.factor); nil means Kafka's defaults. The
	// cluster-wide dynamic defaults in ZooKeeper are overlaid on it. Its
	// zookeeper.set.acl and kzadmin.zookeeper.digest set the ACLs of the
	// znodes created and the session's identity; its zookeeper.ssl.* keys
	// connect over TLS, the client certificate being an identity too, and
	// kzadmin.zookeeper.sasl.jaas.file logs in with SASL (sasl:<user>).
	Config *config.Config
	// SessionTimeout; 0 means 10s, plenty for a command.
	SessionTimeout time.Duration
	Logger         zerolog.Logger
}

// Backend is the ZooKeeper backend.
type Backend struct {
	zk    *zkadmin.Client
	admin *zkadmin.Admin
	// identified: the session has an identity of its own (a digest, a TLS
	// client certificate or a SASL login), which ZooKeeper's "auth" ACLs
	// name.
	identified bool
	// login is the Kerberos login of SASL to ZooKeeper, if any.
	login *zkacl.GSSAPILogin
}

var _ backend.Backend = (*Backend)(nil)

// Open connects. A chroot must already exist: a command never creates one
// (a mistyped chroot would otherwise silently become an empty cluster, and
// --dry-run must write nothing).
func Open(ctx context.Context, opts Options) (*Backend, error) {
	zc, err := config.ParseZKConnect(opts.Connect)
	if err != nil {
		return nil, fmt.Errorf("--zookeeper %q: %w", opts.Connect, err)
	}
	if len(zc.Servers) == 0 {
		return nil, fmt.Errorf("--zookeeper %q: no servers", opts.Connect)
	}
	timeout := opts.SessionTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	zo := zkadmin.Options{Servers: zc.Servers, SessionTimeout: timeout, Logger: opts.Logger}
	identified := false
	if c := opts.Config; c != nil {
		// As kzadmind and Kafka's brokers: znodes created under
		// zookeeper.set.acl belong to the session's identities (digest,
		// x509, sasl), readable by all but the sensitive ones.
		digest, _ := c.Property(config.ZooKeeperDigestKey)
		zkacl.ConnectOptions(&zo, c.ZooKeeper.SetACL, digest)
		var err error
		if zo.TLS, err = tlsconf.ZooKeeperClientConfig(c.Property); err != nil {
			return nil, err
		}
		if zo.SASL, err = zkacl.SASLFromConfig(c.Property); err != nil {
			return nil, err
		}
		identified = zkacl.HasIdentity(zo)
		if err := zkacl.RequireIdentity(c.ZooKeeper.SetACL, zo); err != nil {
			return nil, err
		}
	}
	if zc.Chroot != "" {
		if err := checkChroot(ctx, zo, zc.Chroot); err != nil {
			return nil, err
		}
	}
	zo.Chroot = zc.Chroot
	c, err := zkadmin.Connect(ctx, zo)
	if err != nil {
		return nil, err
	}
	b := &Backend{zk: c, admin: zkadmin.NewAdmin(c, zkadmin.AdminOptions{Config: opts.Config, Logger: opts.Logger}),
		identified: identified}
	if g, ok := zo.SASL.(*zkacl.GSSAPILogin); ok {
		b.login = g
	}
	return b, nil
}

func checkChroot(ctx context.Context, zo zkadmin.Options, chroot string) error {
	c, err := zkadmin.Connect(ctx, zo)
	if err != nil {
		return err
	}
	defer c.Close()
	ok, _, err := c.Exists(ctx, chroot)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("chroot %s does not exist in ZooKeeper %v: no Kafka cluster there (a broker creates it "+
			"when it first starts)", chroot, zo.Servers)
	}
	return nil
}

// Admin returns the zkadmin Admin behind the backend.
func (b *Backend) Admin() *zkadmin.Admin { return b.admin }

// MigrateACLs sets Kafka's ACLs (secure) or open ones on the cluster's
// znodes, as Kafka's zookeeper-security-migration tool does (zkacl.Migrate).
// Secure ACLs belong to the session's identity, so without one it refuses
// before changing anything.
func (b *Backend) MigrateACLs(ctx context.Context, secure, dryRun bool) (zkacl.MigrationReport, error) {
	if secure && !b.identified {
		return zkacl.MigrationReport{}, fmt.Errorf("secure ACLs belong to the session's identity, and this one has none: give "+
			"%s=user:password in --config-file, a TLS client certificate (zookeeper.ssl.keystore.location, in --config-file "+
			"or --zk-tls-config-file) or a SASL login (%s, in --config-file), the identity the brokers and kzadmind use",
			config.ZooKeeperDigestKey, config.ZooKeeperJAASFileKey)
	}
	return zkacl.Migrate(ctx, b.zk, zkacl.MigrateOptions{Secure: secure, DryRun: dryRun})
}

// Close ends the ZooKeeper session.
func (b *Backend) Close() {
	b.zk.Close()
	if b.login != nil {
		b.login.Close() // a Kerberos login renews its tickets until closed
	}
}

// writes converts zkadmin ops for display.
func writes(ops []zkadmin.Op, dryRun bool, attempts int) backend.Writes {
	w := backend.Writes{DryRun: dryRun, Attempts: attempts}
	for _, op := range ops {
		bw := backend.Write{Op: op.Kind.String(), Path: op.Path, Version: op.Version}
		switch op.Kind {
		case zkadmin.OpCreate:
			bw.Version, bw.Mode = -1, op.Mode.String()
			bw.Data = data(op.Data)
		case zkadmin.OpSet:
			bw.Data = data(op.Data)
		}
		w.Ops = append(w.Ops, bw)
	}
	return w
}

func data(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

// convertErr maps zkadmin's typed refusals to backend.Error; other errors
// (ZooKeeper unreachable, ...) pass through.
func convertErr(err error) error {
	var ae *zkadmin.AdminError
	if !errors.As(err, &ae) {
		return err
	}
	return &backend.Error{Resource: resourceName(ae.Resource), Code: ae.Code, Name: backend.ErrorName(ae.Code),
		Reason: ae.Kind.String(), Message: ae.Message, Err: err}
}

func resourceName(r string) string {
	if r == "" || r == "cluster" {
		return ""
	}
	return r
}
