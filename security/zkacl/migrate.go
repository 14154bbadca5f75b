package zkacl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// SecureRootPaths are the paths whose subtrees Kafka's
// zookeeper-security-migration tool re-ACLs (ZkData.SecureRootPaths with
// the ACL stores' paths), relative to the chroot. /consumers is not
// among them: old consumers write under it, so it stays open.
func SecureRootPaths() []string {
	return []string{
		znodes.AdminPath, znodes.BrokersPath, znodes.ClusterPath, znodes.ConfigPath,
		znodes.ControllerPath, znodes.ControllerEpochPath, znodes.IsrChangeNotificationPath,
		znodes.LatestProducerIDBlockPath, znodes.LogDirEventNotificationPath, znodes.DelegationTokenPath,
		znodes.ExtendedACLPath, znodes.MigrationPath, znodes.FeaturePath,
		znodes.ACLPath, znodes.ACLChangesPath, znodes.ExtendedACLChangesPath,
	}
}

// MigrationReport is what Migrate did (or, dry, would do).
type MigrationReport struct {
	// Set is the number of znodes whose ACL was set: the chroot and every
	// znode under the root paths that exist.
	Set int
	// Missing are the root paths that do not exist; they are left to
	// whoever creates them, who applies its own ACLs.
	Missing []string
	// Gone counts znodes deleted between their listing and their setACL.
	Gone int
}

// MigrateOptions tune Migrate.
type MigrateOptions struct {
	// Secure chooses Kafka's ACLs under zookeeper.set.acl=true (DefaultACL);
	// false opens every znode to everyone, as zookeeper.set.acl=false
	// would have created them.
	Secure bool
	// DryRun walks the tree and counts, setting nothing.
	DryRun bool
	// InFlight bounds the requests outstanding at once; 0 means 64.
	InFlight int
}

// Migrate does what Kafka's zookeeper-security-migration tool does with
// --zookeeper.acl secure or unsecure: it sets the ACL Kafka would have
// given each znode (DefaultACL of its path) on the chroot itself and on
// every znode under SecureRootPaths, so that a cluster can move to
// zookeeper.set.acl=true, or back. Under Secure the znodes belong to the
// session's identities ("auth"): run it with the identity the brokers
// and kzadmind use, or they lose the right to write.
//
// Each setACL stands alone and the walk can be run again, so a run cut
// short is finished by running it again. Unlike Kafka's tool, a missing
// root path is reported, not created.
func Migrate(ctx context.Context, c *zkadmin.Client, o MigrateOptions) (MigrationReport, error) {
	if o.InFlight <= 0 {
		o.InFlight = 64
	}
	m := &migration{c: c, o: o, sem: make(chan struct{}, o.InFlight)}
	m.set(ctx, "/")
	level := m.existingRoots(ctx)
	for len(level) > 0 && m.firstErr() == nil {
		for _, p := range level {
			m.set(ctx, p)
		}
		level = m.children(ctx, level)
	}
	m.wg.Wait()
	return m.report, m.firstErr()
}

// migration is one run of Migrate.
type migration struct {
	c   *zkadmin.Client
	o   MigrateOptions
	sem chan struct{}
	wg  sync.WaitGroup

	mu     sync.Mutex
	report MigrationReport
	err    error
}

func (m *migration) firstErr() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

func (m *migration) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

// existingRoots lists the root paths that exist, recording the missing
// ones; a root under an earlier one (/kafka-acl-extended/prefixed under
// /kafka-acl-extended) is covered by its walk.
func (m *migration) existingRoots(ctx context.Context) []string {
	var roots []string
	for _, p := range SecureRootPaths() {
		ok, _, err := m.c.Exists(ctx, p)
		if err != nil {
			m.fail(fmt.Errorf("zookeeper ACL migration: %w", err))
			return nil
		}
		if !ok {
			m.mu.Lock()
			m.report.Missing = append(m.report.Missing, p)
			m.mu.Unlock()
			continue
		}
		roots = append(roots, p)
	}
	return roots
}

// set sets path's ACL in the background, bounded by InFlight.
func (m *migration) set(ctx context.Context, path string) {
	acl := zkadmin.OpenACL()
	if m.o.Secure {
		acl = DefaultACL(true, path)
	}
	m.sem <- struct{}{}
	m.wg.Go(func() {
		defer func() { <-m.sem }()
		var err error
		if !m.o.DryRun {
			_, err = m.c.SetACL(ctx, path, acl, zkadmin.AnyVersion)
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		switch {
		case err == nil:
			m.report.Set++
		case errors.Is(err, zkadmin.ErrNoNode):
			m.report.Gone++
		case m.err == nil:
			m.err = fmt.Errorf("zookeeper ACL migration: %w", err)
		}
	})
}

// children lists the children of every path of a level, pipelined.
func (m *migration) children(ctx context.Context, level []string) []string {
	var next []string
	for _, r := range m.c.ChildrenMany(ctx, level, m.o.InFlight) {
		switch {
		case errors.Is(r.Err, zkadmin.ErrNoNode):
			continue // deleted since it was listed
		case r.Err != nil:
			m.fail(fmt.Errorf("zookeeper ACL migration: list %s: %w", r.Path, r.Err))
			return nil
		}
		for _, child := range r.Children {
			next = append(next, znodes.JoinPath(r.Path, child))
		}
	}
	return next
}

// String summarises the report for a person.
func (r MigrationReport) String() string {
	s := fmt.Sprintf("%d znodes", r.Set)
	if r.Gone > 0 {
		s += fmt.Sprintf(", %d deleted meanwhile", r.Gone)
	}
	if len(r.Missing) > 0 {
		s += "; not present: " + strings.Join(r.Missing, ", ")
	}
	return s
}
