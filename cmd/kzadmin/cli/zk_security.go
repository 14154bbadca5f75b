package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/security/zkacl"
)

// aclMigrator is a backend that can re-ACL the cluster's znodes: the
// ZooKeeper backend only.
type aclMigrator interface {
	MigrateACLs(ctx context.Context, secure, dryRun bool) (zkacl.MigrationReport, error)
}

// zkSecurityJSON is -o json output of zookeeper-security-migration.
type zkSecurityJSON struct {
	ACL     string   `json:"zookeeper_acl"`
	DryRun  bool     `json:"dry_run"`
	Znodes  int      `json:"znodes"`
	Gone    int      `json:"deleted_meanwhile"`
	Missing []string `json:"missing_paths"`
}

func (a *app) zkSecurityCommand() *cobra.Command {
	var mode string
	var pathCheck bool
	cmd := &cobra.Command{
		Use:   "zookeeper-security-migration --zookeeper.acl secure|unsecure",
		Short: "Set Kafka's ZooKeeper ACLs on an existing cluster's znodes (zookeeper-security-migration.sh)",
		Long: `zookeeper-security-migration sets, on the chroot and on every znode under Kafka's
paths, the ACL a broker with zookeeper.set.acl=true would have given it (secure:
the session's identities may do everything, everyone may read but the
credentials under /config/users, /config/brokers and /delegation_token), or
opens them all (unsecure), as Kafka's zookeeper-security-migration.sh does. It
needs --zookeeper; the identity is the digest (kzadmin.zookeeper.digest) in
--config-file, the TLS client certificate (zookeeper.ssl.*, in --config-file
or --zk-tls-config-file) or the SASL login of the JAAS file named by
kzadmin.zookeeper.sasl.jaas.file in --config-file (the brokers' own file, its
Client section), and must be the one the brokers and kzadmind use, or
they lose the right to write. Turn
zookeeper.set.acl on everywhere first, then secure; unsecure before turning it
off. Each znode is set alone: a run cut short is finished by running it again.
Unlike Kafka's tool, a missing Kafka path is reported, not created.`,
		Example: `  kzadmin zookeeper-security-migration --zookeeper zk:2182/kafka --zk-tls-config-file zk-tls.properties --zookeeper.acl secure
  kzadmin zookeeper-security-migration --zookeeper zk:2181/kafka --config-file digest.properties --zookeeper.acl unsecure --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var secure bool
			switch mode {
			case "secure":
				secure = true
			case "unsecure":
			default:
				return usagef("--zookeeper.acl must be secure or unsecure, not %q", mode)
			}
			if a.g.BootstrapServer != "" {
				return usagef("zookeeper-security-migration needs --zookeeper: it sets znode ACLs, which no Kafka API reaches")
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				m, ok := b.(aclMigrator)
				if !ok {
					return fmt.Errorf("zookeeper-security-migration: the %T backend cannot set znode ACLs", b)
				}
				if pathCheck {
					// Kafka's tool checks before it changes anything.
					r, err := m.MigrateACLs(ctx, secure, true)
					if err != nil {
						return err
					}
					if len(r.Missing) > 0 {
						return fmt.Errorf("paths not present: %s; nothing changed", strings.Join(r.Missing, ", "))
					}
				}
				r, err := m.MigrateACLs(ctx, secure, a.g.DryRun)
				if err != nil {
					return err
				}
				if a.jsonOutput() {
					return a.printJSON(zkSecurityJSON{ACL: mode, DryRun: a.g.DryRun, Znodes: r.Set, Gone: r.Gone,
						Missing: append([]string{}, r.Missing...)})
				}
				verb := "Set"
				if a.g.DryRun {
					verb = "Would set"
				}
				fmt.Fprintf(a.out, "%s %s ACLs on %s.\n", verb, mode, r)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&mode, "zookeeper.acl", "", "secure or unsecure")
	f.BoolVar(&pathCheck, "enable.path.check", false, "fail when one of Kafka's root paths is not present")
	return cmd
}
