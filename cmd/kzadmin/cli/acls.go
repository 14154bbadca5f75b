package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/security/acl"
)

// aclBackend is a backend that can list and change ACLs: the ZooKeeper
// backend writes Kafka's ACL znodes, the wire backend sends the ACL APIs.
type aclBackend interface {
	ACLs() acl.Manager
}

func (a *app) aclsCommand() *cobra.Command {
	var f aclFlags
	cmd := &cobra.Command{
		Use:   "acls (--list | --add | --remove) [resource options] [principal options]",
		Short: "List, add and remove ACLs in Kafka's ZooKeeper format (kafka-acls.sh)",
		Long: `acls lists, adds and removes the ACLs Kafka's AclAuthorizer (and kzadmind's)
reads, with kafka-acls' options. With --zookeeper it writes /kafka-acl/<type>/<name>
(prefixed patterns under /kafka-acl-extended/prefixed) and the change notification
brokers follow, exactly as kafka-acls --authorizer-properties zookeeper.connect=... does.
With --bootstrap-server it sends DescribeAcls, CreateAcls and DeleteAcls, which every
broker and kzadmind answer from those znodes (an authorizer must be configured there).`,
		Example: `  kzadmin acls --zookeeper zk:2181 --add --allow-principal User:alice --operation Read --operation Describe --topic orders
  kzadmin acls --zookeeper zk:2181 --add --allow-principal User:broker --operation ClusterAction --cluster
  kzadmin acls --zookeeper zk:2181 --add --allow-principal User:app --operation Write --topic fin- --resource-pattern-type prefixed
  kzadmin acls --zookeeper zk:2181 --list --topic orders --resource-pattern-type match
  kzadmin acls --zookeeper zk:2181 --remove --force --allow-principal User:alice --operation Read --topic orders`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			action, err := f.action()
			if err != nil {
				return err
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				s, ok := b.(aclBackend)
				if !ok {
					return fmt.Errorf("kzadmin acls: the %T backend cannot reach ACLs", b)
				}
				switch action {
				case "add":
					return a.aclsAdd(ctx, s.ACLs(), f)
				case "remove":
					return a.aclsRemove(ctx, s.ACLs(), f)
				}
				return a.aclsList(ctx, s.ACLs(), f)
			})
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// aclJSON is one ACL binding in -o json output.
type aclJSON struct {
	ResourceType string `json:"resource_type"`
	Name         string `json:"name"`
	PatternType  string `json:"pattern_type"`
	Principal    string `json:"principal"`
	Host         string `json:"host"`
	Operation    string `json:"operation"`
	Permission   string `json:"permission"`
}

func bindingsJSON(bs []acl.Binding) []aclJSON {
	out := make([]aclJSON, 0, len(bs))
	for _, b := range bs {
		out = append(out, aclJSON{ResourceType: b.Pattern.Type.EnumName(), Name: b.Pattern.Name,
			PatternType: b.Pattern.PatternType.String(), Principal: b.Entry.Principal, Host: b.Entry.Host,
			Operation: b.Entry.Operation.EnumName(), Permission: b.Entry.Permission.EnumName()})
	}
	return out
}

// printByResource prints bindings grouped by pattern, as kafka-acls does:
// "<title> `ResourcePattern(...)`:" then one entry per line.
func (a *app) printByResource(title string, bs []acl.Binding) {
	var order []acl.Pattern
	by := map[acl.Pattern][]acl.Entry{}
	for _, b := range bs {
		if _, seen := by[b.Pattern]; !seen {
			order = append(order, b.Pattern)
		}
		by[b.Pattern] = append(by[b.Pattern], b.Entry)
	}
	for _, p := range order {
		lines := make([]string, len(by[p]))
		for i, e := range by[p] {
			lines[i] = "\t" + e.String()
		}
		fmt.Fprintf(a.out, "%s `%s`: \n %s \n\n", title, p, strings.Join(lines, "\n"))
	}
}

func (a *app) aclsAdd(ctx context.Context, s acl.Manager, f aclFlags) error {
	pt, err := f.resourcePatternType()
	if err != nil {
		return err
	}
	if pt != acl.PatternLiteral && pt != acl.PatternPrefixed {
		return usagef("A '--resource-pattern-type' value of '%s' is not valid when adding acls.", pt)
	}
	resources := f.resources(pt)
	if len(resources) == 0 {
		return usagef("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>")
	}
	entries, err := f.entries()
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return usagef("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
	}
	if err := checkOperations(resources, entries); err != nil {
		return err
	}
	var bs []acl.Binding
	for _, r := range resources {
		for _, e := range entries {
			b := acl.Binding{Pattern: acl.Pattern{Type: r.Type, Name: r.Name, PatternType: pt}, Entry: e}
			if err := acl.ValidateBinding(b); err != nil {
				return usagef("%v", err)
			}
			bs = append(bs, b)
		}
	}
	if a.g.DryRun {
		a.printByResource("Dry run: nothing was written. Would add ACLs for resource", bs)
		return nil
	}
	if err := s.Add(ctx, bs); err != nil {
		return err
	}
	if a.jsonOutput() {
		return a.printJSON(map[string]any{"added": bindingsJSON(bs)})
	}
	a.printByResource("Adding ACLs for resource", bs)
	return nil
}

func (a *app) aclsRemove(ctx context.Context, s acl.Manager, f aclFlags) error {
	pt, err := f.resourcePatternType()
	if err != nil {
		return err
	}
	resources := f.resources(pt)
	if len(resources) == 0 {
		return usagef("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>")
	}
	entries, err := f.entries()
	if err != nil {
		return err
	}
	if err := checkOperations(resources, entries); err != nil {
		return err
	}
	if !f.force && !a.g.DryRun {
		return usagef("--remove deletes ACLs without asking: add --force (kafka-acls would ask for confirmation)")
	}
	filters := removeFilters(resources, entries)
	if a.g.DryRun {
		var would []acl.Binding
		for _, fl := range filters {
			bs, err := s.List(ctx, fl)
			if err != nil {
				return err
			}
			would = append(would, bs...)
		}
		a.printByResource("Dry run: nothing was written. Would remove ACLs from resource", would)
		return nil
	}
	var removed []acl.Binding
	for _, fl := range filters {
		bs, err := s.Remove(ctx, fl)
		removed = append(removed, bs...)
		if err != nil {
			return err
		}
	}
	if a.jsonOutput() {
		return a.printJSON(map[string]any{"removed": bindingsJSON(removed)})
	}
	if len(removed) == 0 {
		fmt.Fprintln(a.out, "No matching ACLs: nothing removed.")
	}
	a.printByResource("Removed ACLs from resource", removed)
	return nil
}

// removeFilters is one filter per resource, or per resource and entry
// when principals are given (AclCommand removes exactly those entries).
func removeFilters(resources []acl.Filter, entries []acl.Entry) []acl.Filter {
	if len(entries) == 0 {
		return resources
	}
	var out []acl.Filter
	for _, r := range resources {
		for _, e := range entries {
			fl := r
			fl.Principal, fl.Host, fl.Operation, fl.Permission = e.Principal, e.Host, e.Operation, e.Permission
			out = append(out, fl)
		}
	}
	return out
}

func (a *app) aclsList(ctx context.Context, s acl.Manager, f aclFlags) error {
	pt, err := f.resourcePatternType()
	if err != nil {
		return err
	}
	filters := f.resources(pt)
	if len(filters) == 0 {
		filters = []acl.Filter{acl.MatchAll()}
	}
	var all []acl.Binding
	seen := map[acl.Binding]bool{}
	for _, fl := range filters {
		bs, err := s.List(ctx, fl)
		if err != nil {
			return err
		}
		for _, b := range bs {
			if !seen[b] {
				seen[b] = true
				all = append(all, b)
			}
		}
	}
	var principals []string
	for _, p := range f.listPrincipals {
		pr, err := parsePrincipal(p)
		if err != nil {
			return err
		}
		principals = append(principals, pr)
	}
	if a.jsonOutput() {
		return a.printJSON(bindingsJSON(filterPrincipals(all, principals)))
	}
	if len(principals) == 0 {
		a.printByResource("Current ACLs for resource", all)
		return nil
	}
	for _, p := range principals {
		fmt.Fprintf(a.out, "ACLs for principal `%s`\n", p)
		a.printByResource("Current ACLs for resource", filterPrincipals(all, []string{p}))
	}
	return nil
}

// filterPrincipals keeps the bindings of the given principals (all when
// none are given).
func filterPrincipals(bs []acl.Binding, principals []string) []acl.Binding {
	if len(principals) == 0 {
		return bs
	}
	var out []acl.Binding
	for _, b := range bs {
		for _, p := range principals {
			if b.Entry.Principal == p {
				out = append(out, b)
				break
			}
		}
	}
	return out
}
