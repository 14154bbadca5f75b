package cli

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kzadmin/kzadmin/security/acl"
)

// aclFlags are kafka-acls' options (AclCommand), with the same names and
// the same defaults: --operation All, --resource-pattern-type literal,
// host * for a principal given without --allow-host / --deny-host.
type aclFlags struct {
	list, add, remove, force bool

	allowPrincipals, denyPrincipals []string
	allowHosts, denyHosts           []string
	operations                      []string
	listPrincipals                  []string

	topics, groups, transactionalIDs, delegationTokens, userPrincipals []string
	cluster                                                            bool
	patternType                                                        string
}

func (f *aclFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.list, "list", false, "list ACLs for the given resources (all when none is given)")
	fs.BoolVar(&f.add, "add", false, "add ACLs")
	fs.BoolVar(&f.remove, "remove", false, "remove ACLs")
	fs.BoolVar(&f.force, "force", false, "remove without asking (kzadmin never asks: --remove needs --force)")
	fs.StringArrayVar(&f.allowPrincipals, "allow-principal", nil, "principal (<type>:<name>, e.g. User:alice, User:*) the ACL allows; repeatable")
	fs.StringArrayVar(&f.denyPrincipals, "deny-principal", nil, "principal the ACL denies; repeatable")
	fs.StringArrayVar(&f.allowHosts, "allow-host", nil, "host (IP address or *) for --allow-principal; default *")
	fs.StringArrayVar(&f.denyHosts, "deny-host", nil, "host for --deny-principal; default *")
	fs.StringArrayVar(&f.operations, "operation", nil, "operation: All, Read, Write, Create, Delete, Alter, Describe, "+
		"ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, CreateTokens, DescribeTokens; default All")
	fs.StringArrayVar(&f.listPrincipals, "principal", nil, "with --list: only ACLs of this principal; repeatable")
	fs.StringArrayVar(&f.topics, "topic", nil, "topic (or prefix, or * for all topics); repeatable")
	fs.StringArrayVar(&f.groups, "group", nil, "consumer group; repeatable")
	fs.StringArrayVar(&f.transactionalIDs, "transactional-id", nil, "transactional id; repeatable")
	fs.StringArrayVar(&f.delegationTokens, "delegation-token", nil, "delegation token id; repeatable")
	fs.StringArrayVar(&f.userPrincipals, "user-principal", nil, "user principal (resource of CreateTokens/DescribeTokens); repeatable")
	fs.BoolVar(&f.cluster, "cluster", false, "the cluster resource (kafka-cluster)")
	fs.StringVar(&f.patternType, "resource-pattern-type", "literal", "literal or prefixed; --list and --remove also take any and match")
}

// action is the one of --list, --add and --remove given.
func (f aclFlags) action() (string, error) {
	var given []string
	for name, on := range map[string]bool{"list": f.list, "add": f.add, "remove": f.remove} {
		if on {
			given = append(given, name)
		}
	}
	if len(given) != 1 {
		return "", usagef("give exactly one of --list, --add and --remove")
	}
	return given[0], nil
}

// resourcePatternType reads --resource-pattern-type as Kafka's
// PatternType.fromString does, case-insensitively.
func (f aclFlags) resourcePatternType() (acl.PatternType, error) {
	switch strings.ToUpper(strings.TrimSpace(f.patternType)) {
	case "LITERAL":
		return acl.PatternLiteral, nil
	case "PREFIXED":
		return acl.PatternPrefixed, nil
	case "MATCH":
		return acl.PatternMatch, nil
	case "ANY":
		return acl.PatternAny, nil
	}
	return 0, usagef("--resource-pattern-type must be literal, prefixed, match or any, not %q", f.patternType)
}

// resources are the resource filters the options name, as AclCommand's
// getResourceFilter builds them; --cluster counts only with the literal
// pattern type, as there.
func (f aclFlags) resources(pt acl.PatternType) []acl.Filter {
	var out []acl.Filter
	one := func(t acl.ResourceType, names []string) {
		for _, n := range names {
			if t != acl.ResourceTransactionalID {
				n = strings.TrimSpace(n)
			}
			fl := acl.MatchAll()
			fl.Type, fl.Name, fl.PatternType = t, n, pt
			out = append(out, fl)
		}
	}
	one(acl.ResourceTopic, f.topics)
	if pt == acl.PatternLiteral && f.cluster {
		one(acl.ResourceCluster, []string{acl.ClusterName})
	}
	one(acl.ResourceGroup, f.groups)
	one(acl.ResourceTransactionalID, f.transactionalIDs)
	one(acl.ResourceDelegationToken, f.delegationTokens)
	one(acl.ResourceUser, f.userPrincipals)
	return out
}

// entries are the access control entries the options describe: every
// principal × operation × host, allow and deny (AclCommand.getAcl).
func (f aclFlags) entries() ([]acl.Entry, error) {
	ops := f.operations
	if len(ops) == 0 {
		ops = []string{"All"}
	}
	var parsedOps []acl.Operation
	for _, o := range ops {
		op, ok := acl.ParseOperation(strings.TrimSpace(o))
		if !ok {
			return nil, usagef("--operation %q is not an ACL operation", o)
		}
		parsedOps = append(parsedOps, op)
	}
	var out []acl.Entry
	for _, side := range []struct {
		principals, hosts []string
		perm              acl.Permission
	}{{f.allowPrincipals, f.allowHosts, acl.PermissionAllow}, {f.denyPrincipals, f.denyHosts, acl.PermissionDeny}} {
		hosts := side.hosts
		if len(hosts) == 0 {
			hosts = []string{acl.WildcardHost}
		}
		for _, p := range side.principals {
			pr, err := parsePrincipal(p)
			if err != nil {
				return nil, err
			}
			for _, op := range parsedOps {
				for _, h := range hosts {
					e := acl.Entry{Principal: pr, Host: strings.TrimSpace(h), Operation: op, Permission: side.perm}
					if !slices.Contains(out, e) {
						out = append(out, e)
					}
				}
			}
		}
	}
	return out, nil
}

// parsePrincipal checks "<type>:<name>" as Kafka's
// SecurityUtils.parseKafkaPrincipal does.
func parsePrincipal(s string) (string, error) {
	s = strings.TrimSpace(s)
	if _, ok := acl.ParsePrincipal(s); !ok {
		return "", usagef("expected a string in format principalType:principalName but got %s", s)
	}
	return s, nil
}

// checkOperations refuses an operation the resource type does not
// support, with AclCommand's message.
func checkOperations(resources []acl.Filter, entries []acl.Entry) error {
	for _, r := range resources {
		valid := acl.ValidOperations(r.Type)
		for _, e := range entries {
			if !slices.Contains(valid, e.Operation) {
				names := make([]string, len(valid))
				for i, o := range valid {
					names[i] = o.String()
				}
				return usagef("ResourceType %s only supports operations %s", r.Type.EnumName(), strings.Join(names, ", "))
			}
		}
	}
	return nil
}
