package wirebackend

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/security/acl"
)

// ACLs lists and changes ACLs with DescribeAcls, CreateAcls and
// DeleteAcls. kgo sends them to any node; every ZooKeeper-mode broker and
// every kzadmind answers them from the same znodes, provided an
// authorizer is configured there (else SECURITY_DISABLED).
func (b *Backend) ACLs() acl.Manager { return wireACLs{b: b} }

type wireACLs struct{ b *Backend }

// orNull is s, or null for "" (a filter field that matches everything).
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (w wireACLs) List(ctx context.Context, f acl.Filter) ([]acl.Binding, error) {
	req := kmsg.NewPtrDescribeACLsRequest()
	req.ResourceType, req.ResourceName = kmsg.ACLResourceType(f.Type), orNull(f.Name)
	req.ResourcePatternType = kmsg.ACLResourcePatternType(f.PatternType)
	req.Principal, req.Host = orNull(f.Principal), orNull(f.Host)
	req.Operation, req.PermissionType = kmsg.ACLOperation(f.Operation), kmsg.ACLPermissionType(f.Permission)
	resp, err := responseAs[*kmsg.DescribeACLsResponse](w.b.request(ctx, req))
	if err != nil {
		return nil, err
	}
	if err := codeError("ACLs", resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	var out []acl.Binding
	for _, r := range resp.Resources {
		p := acl.Pattern{Type: acl.ResourceType(r.ResourceType), Name: r.ResourceName, PatternType: acl.PatternType(r.ResourcePatternType)}
		for _, a := range r.ACLs {
			out = append(out, acl.Binding{Pattern: p, Entry: acl.Entry{Principal: a.Principal, Host: a.Host,
				Operation: acl.Operation(a.Operation), Permission: acl.Permission(a.PermissionType)}})
		}
	}
	return out, nil
}

func (w wireACLs) Add(ctx context.Context, bindings []acl.Binding) error {
	req := kmsg.NewPtrCreateACLsRequest()
	for _, b := range bindings {
		c := kmsg.NewCreateACLsRequestCreation()
		c.ResourceType, c.ResourceName = kmsg.ACLResourceType(b.Pattern.Type), b.Pattern.Name
		c.ResourcePatternType = kmsg.ACLResourcePatternType(b.Pattern.PatternType)
		c.Principal, c.Host = b.Entry.Principal, b.Entry.Host
		c.Operation, c.PermissionType = kmsg.ACLOperation(b.Entry.Operation), kmsg.ACLPermissionType(b.Entry.Permission)
		req.Creations = append(req.Creations, c)
	}
	resp, err := responseAs[*kmsg.CreateACLsResponse](w.b.request(ctx, req))
	if err != nil {
		return err
	}
	var errs []error
	for i, r := range resp.Results {
		if i < len(bindings) {
			errs = append(errs, codeError(bindings[i].Pattern.String()+" "+bindings[i].Entry.String(), r.ErrorCode, r.ErrorMessage))
		}
	}
	return errors.Join(errs...)
}

func (w wireACLs) Remove(ctx context.Context, f acl.Filter) ([]acl.Binding, error) {
	req := kmsg.NewPtrDeleteACLsRequest()
	fr := kmsg.NewDeleteACLsRequestFilter()
	fr.ResourceType, fr.ResourceName = kmsg.ACLResourceType(f.Type), orNull(f.Name)
	fr.ResourcePatternType = kmsg.ACLResourcePatternType(f.PatternType)
	fr.Principal, fr.Host = orNull(f.Principal), orNull(f.Host)
	fr.Operation, fr.PermissionType = kmsg.ACLOperation(f.Operation), kmsg.ACLPermissionType(f.Permission)
	req.Filters = append(req.Filters, fr)
	resp, err := responseAs[*kmsg.DeleteACLsResponse](w.b.request(ctx, req))
	if err != nil {
		return nil, err
	}
	var removed []acl.Binding
	var errs []error
	for _, r := range resp.Results {
		errs = append(errs, codeError("ACLs", r.ErrorCode, r.ErrorMessage))
		for _, m := range r.MatchingACLs {
			b := acl.Binding{
				Pattern: acl.Pattern{Type: acl.ResourceType(m.ResourceType), Name: m.ResourceName, PatternType: acl.PatternType(m.ResourcePatternType)},
				Entry: acl.Entry{Principal: m.Principal, Host: m.Host, Operation: acl.Operation(m.Operation),
					Permission: acl.Permission(m.PermissionType)},
			}
			if err := codeError(b.Pattern.String()+" "+b.Entry.String(), m.ErrorCode, m.ErrorMessage); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, b)
		}
	}
	return removed, errors.Join(errs...)
}
