package acl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// ZK is the ZooKeeper access the cache and the store need; *zkadmin.Client
// implements it.
type ZK interface {
	Get(ctx context.Context, path string) ([]byte, zkadmin.Stat, error)
	GetMany(ctx context.Context, paths []string, maxInFlight int) []zkadmin.GetResult
	Children(ctx context.Context, path string) ([]string, zkadmin.Stat, error)
	ChildrenW(ctx context.Context, path string) ([]string, zkadmin.Stat, <-chan zkadmin.Event, error)
	EnsurePath(ctx context.Context, path string) error
	Delete(ctx context.Context, path string, version int32) error
	Multi(ctx context.Context, ops ...zkadmin.Op) ([]zkadmin.OpResult, error)
}

// storedPatternTypes are the pattern types with a ZooKeeper store.
func storedPatternTypes() []PatternType { return []PatternType{PatternLiteral, PatternPrefixed} }

// typePath is the parent of a pattern type's ACL znodes for one resource
// type: /kafka-acl/Topic or /kafka-acl-extended/prefixed/Topic.
func typePath(pt PatternType, rt ResourceType) string {
	return znodes.ACLResourceTypePath(pt.String(), rt.String())
}

// resourcePath is the znode of one pattern.
func resourcePath(p Pattern) string {
	return znodes.ACLResourcePath(p.PatternType.String(), p.Type.String(), p.Name)
}

// storeRoot is the root of a pattern type's store.
func storeRoot(pt PatternType) string {
	if pt == PatternLiteral {
		return znodes.ACLPath
	}
	return znodes.ExtendedACLPath + "/" + strings.ToLower(pt.String())
}

// changeRoot is where a pattern type's change notifications go.
func changeRoot(pt PatternType) string {
	if pt == PatternLiteral {
		return znodes.ACLChangesPath
	}
	return znodes.ExtendedACLChangesPath
}

// EnsurePaths creates the ACL trees as Kafka's authorizer does at start:
// every store's per-type parents and both change roots.
func EnsurePaths(ctx context.Context, zk ZK) error {
	for _, pt := range storedPatternTypes() {
		for _, rt := range StoredResourceTypes() {
			if err := zk.EnsurePath(ctx, typePath(pt, rt)); err != nil {
				return fmt.Errorf("create ACL paths: %w", err)
			}
		}
		if err := zk.EnsurePath(ctx, changeRoot(pt)); err != nil {
			return fmt.Errorf("create ACL paths: %w", err)
		}
	}
	return nil
}

// decodeEntries reads a resource znode's entries. Unknown operation or
// permission names are kept as Unknown, as Kafka keeps them: such an
// entry never matches but still counts as an ACL for the resource.
func decodeEntries(path string, data []byte) ([]Entry, error) {
	r, err := znodes.DecodeResourceACLs(path, data)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(r.ACLs))
	for _, a := range r.ACLs {
		op, _ := ParseOperation(a.Operation)
		perm, _ := ParsePermission(a.PermissionType)
		out = append(out, Entry{Principal: a.Principal, Host: a.Host, Operation: op, Permission: perm})
	}
	return out, nil
}

// encodeEntries writes entries in Kafka's format.
func encodeEntries(es []Entry) ([]byte, error) {
	r := znodes.ResourceACLs{ACLs: make([]znodes.ACLEntry, len(es))}
	for i, e := range es {
		r.ACLs[i] = znodes.ACLEntry{Principal: e.Principal, PermissionType: e.Permission.String(),
			Operation: e.Operation.String(), Host: e.Host}
	}
	return r.Encode()
}

// readPattern reads one pattern's entries and znode version; a missing
// znode is no entries and version -1.
func readPattern(ctx context.Context, zk ZK, p Pattern) ([]Entry, int32, error) {
	path := resourcePath(p)
	data, st, err := zk.Get(ctx, path)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, 0, err
	}
	es, err := decodeEntries(path, data)
	if err != nil {
		return nil, 0, err
	}
	return es, st.Version, nil
}

// loadAll reads every stored pattern with pipelined reads.
func loadAll(ctx context.Context, zk ZK) (map[Pattern][]Entry, []error, error) {
	var patterns []Pattern
	var paths []string
	for _, pt := range storedPatternTypes() {
		types, _, err := zk.Children(ctx, storeRoot(pt))
		if errors.Is(err, zkadmin.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("list ACL resource types: %w", err)
		}
		for _, t := range types {
			rt, ok := ParseResourceType(t)
			if !ok {
				continue // Kafka ignores unknown resource types too
			}
			names, _, err := zk.Children(ctx, storeRoot(pt)+"/"+t)
			if err != nil && !errors.Is(err, zkadmin.ErrNoNode) {
				return nil, nil, fmt.Errorf("list ACL resources: %w", err)
			}
			for _, n := range names {
				patterns = append(patterns, Pattern{Type: rt, Name: n, PatternType: pt})
				paths = append(paths, storeRoot(pt)+"/"+t+"/"+n)
			}
		}
	}
	out := make(map[Pattern][]Entry, len(patterns))
	var bad []error
	for i, r := range zk.GetMany(ctx, paths, 0) {
		switch {
		case errors.Is(r.Err, zkadmin.ErrNoNode):
			continue
		case r.Err != nil:
			return nil, nil, fmt.Errorf("read ACLs: %w", r.Err)
		}
		es, err := decodeEntries(r.Path, r.Data)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		if len(es) > 0 {
			out[patterns[i]] = es
		}
	}
	return out, bad, nil
}

// changeSeq is the sequence number of a notification child.
func changeSeq(child string) (int64, bool) {
	s, ok := strings.CutPrefix(child, znodes.ACLChangePrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// decodeChange reads a notification of pattern type pt's change store.
func decodeChange(pt PatternType, data []byte) (Pattern, error) {
	var c znodes.ACLChange
	var err error
	if pt == PatternLiteral {
		c, err = znodes.DecodeLiteralACLChange(data)
	} else {
		c, err = znodes.DecodeExtendedACLChange(data)
	}
	if err != nil {
		return Pattern{}, err
	}
	rt, ok := ParseResourceType(c.ResourceType)
	if !ok {
		return Pattern{}, fmt.Errorf("ACL change for unknown resource type %q", c.ResourceType)
	}
	got, ok := ParsePatternType(c.PatternType)
	if !ok || got != pt {
		return Pattern{}, fmt.Errorf("ACL change with pattern type %q in the %s store", c.PatternType, pt)
	}
	return Pattern{Type: rt, Name: c.Name, PatternType: pt}, nil
}

// encodeChange writes the notification for a change of p.
func encodeChange(p Pattern) []byte {
	c := znodes.ACLChange{ResourceType: p.Type.EnumName(), Name: p.Name, PatternType: p.PatternType.String()}
	if p.PatternType == PatternLiteral {
		return znodes.EncodeLiteralACLChange(c)
	}
	return znodes.EncodeExtendedACLChange(c)
}

// changeOp creates the notification for a change of p.
func changeOp(p Pattern) zkadmin.Op {
	return zkadmin.CreateOp(changeRoot(p.PatternType)+"/"+znodes.ACLChangePrefix, encodeChange(p), zkadmin.PersistentSequential)
}
