package acl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// Manager lists, adds and removes ACL bindings: Store does it in
// ZooKeeper, the CLI's wire backend through kzadmind or a broker.
type Manager interface {
	// List returns the bindings f matches, grouped by pattern.
	List(ctx context.Context, f Filter) ([]Binding, error)
	// Add stores bindings; entries a pattern already has are kept once.
	Add(ctx context.Context, bindings []Binding) error
	// Remove deletes the bindings f matches and returns them.
	Remove(ctx context.Context, f Filter) ([]Binding, error)
}

// Store reads and writes ACLs in Kafka's ZooKeeper layout. Each change of
// a pattern is one multi: the version-checked write (or delete) of its
// znode and its change notification, retried from a fresh read when a
// concurrent writer got in first.
type Store struct {
	zk ZK
}

// NewStore returns a Store over zk.
func NewStore(zk ZK) *Store { return &Store{zk: zk} }

// maxAttempts bounds the retries of one pattern's read-modify-write.
const maxAttempts = 20

// List returns the bindings f matches, sorted by pattern.
func (s *Store) List(ctx context.Context, f Filter) ([]Binding, error) {
	acls, bad, err := loadAll(ctx, s.zk)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, errors.Join(bad...)
	}
	var out []Binding
	for _, p := range sortedPatterns(acls) {
		if !f.MatchesPattern(p) {
			continue
		}
		for _, e := range acls[p] {
			if f.MatchesEntry(e) {
				out = append(out, Binding{Pattern: p, Entry: e})
			}
		}
	}
	return out, nil
}

// ValidateBinding checks a binding as kafka-acls and the authorizer do
// before writing it.
func ValidateBinding(b Binding) error {
	p, e := b.Pattern, b.Entry
	switch {
	case !slices.Contains(StoredResourceTypes(), p.Type):
		return fmt.Errorf("invalid resource type %s", p.Type)
	case p.PatternType != PatternLiteral && p.PatternType != PatternPrefixed:
		return fmt.Errorf("resource pattern type must be LITERAL or PREFIXED, not %s", p.PatternType)
	case p.Name == "":
		return errors.New("resource name must not be empty")
	case p.PatternType == PatternPrefixed && p.Name == WildcardResource:
		return errors.New("a prefixed pattern cannot be the wildcard '*'")
	case e.Host == "":
		return errors.New("host must not be empty (use * for any host)")
	case e.Permission != PermissionAllow && e.Permission != PermissionDeny:
		return fmt.Errorf("permission must be Allow or Deny, not %s", e.Permission)
	case !slices.Contains(ValidOperations(p.Type), e.Operation):
		return fmt.Errorf("resource type %s only supports operations %v, not %s", p.Type, ValidOperations(p.Type), e.Operation)
	}
	if _, ok := ParsePrincipal(e.Principal); !ok {
		return fmt.Errorf("principal %q is not <type>:<name>", e.Principal)
	}
	return nil
}

// Add stores bindings; entries a pattern already has are kept once.
func (s *Store) Add(ctx context.Context, bindings []Binding) error {
	byPattern := map[Pattern][]Entry{}
	for _, b := range bindings {
		if err := ValidateBinding(b); err != nil {
			return fmt.Errorf("add ACL %s %s: %w", b.Pattern, b.Entry, err)
		}
		byPattern[b.Pattern] = append(byPattern[b.Pattern], b.Entry)
	}
	if err := EnsurePaths(ctx, s.zk); err != nil {
		return err
	}
	for _, p := range sortedPatterns(byPattern) {
		add := byPattern[p]
		err := s.update(ctx, p, func(cur []Entry) []Entry {
			for _, e := range add {
				if !slices.Contains(cur, e) {
					cur = append(cur, e)
				}
			}
			return cur
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes the bindings f matches and returns them. A pattern left
// without entries loses its znode, as in Kafka.
func (s *Store) Remove(ctx context.Context, f Filter) ([]Binding, error) {
	acls, _, err := loadAll(ctx, s.zk)
	if err != nil {
		return nil, err
	}
	var removed []Binding
	for _, p := range sortedPatterns(acls) {
		if !f.MatchesPattern(p) {
			continue
		}
		var gone []Binding // of the last attempt only
		err := s.update(ctx, p, func(cur []Entry) []Entry {
			gone = gone[:0]
			kept := cur[:0:0]
			for _, e := range cur {
				if f.MatchesEntry(e) {
					gone = append(gone, Binding{Pattern: p, Entry: e})
				} else {
					kept = append(kept, e)
				}
			}
			return kept
		})
		if err != nil {
			return removed, err
		}
		removed = append(removed, gone...)
	}
	return removed, nil
}

// update applies change to p's entries with a version-checked multi that
// also writes the change notification; nothing is written when the
// entries stay the same. change may run more than once.
func (s *Store) update(ctx context.Context, p Pattern, change func([]Entry) []Entry) error {
	path := resourcePath(p)
	for range maxAttempts {
		cur, version, err := readPattern(ctx, s.zk, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		next := change(slices.Clone(cur))
		if slices.Equal(next, cur) {
			return nil
		}
		var op zkadmin.Op
		switch {
		case len(next) == 0:
			op = zkadmin.DeleteOp(path, version)
		case version < 0:
			data, err := encodeEntries(next)
			if err != nil {
				return err
			}
			op = zkadmin.CreateOp(path, data, zkadmin.Persistent)
		default:
			data, err := encodeEntries(next)
			if err != nil {
				return err
			}
			op = zkadmin.SetOp(path, data, version)
		}
		_, err = s.zk.Multi(ctx, op, changeOp(p))
		if errors.Is(err, zkadmin.ErrBadVersion) || errors.Is(err, zkadmin.ErrNodeExists) || errors.Is(err, zkadmin.ErrNoNode) && version >= 0 {
			continue // someone else wrote it first: read again
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	return fmt.Errorf("write %s: still conflicting after %d attempts", path, maxAttempts)
}

func sortedPatterns(m map[Pattern][]Entry) []Pattern {
	out := make([]Pattern, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.PatternType != b.PatternType {
			return a.PatternType < b.PatternType
		}
		return a.Name < b.Name
	})
	return out
}
