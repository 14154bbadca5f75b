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

func (w wireACLs) List(ctx context.Context, f acl.Filter) ([]acl.Binding, error) {
	req := kmsg.NewPtrDescribeACLsRequest()
	req.ResourceType, req.ResourceName, req.ResourcePatternType, req.Principal, req.Host, req.Operation,
		req.PermissionType = acl.FilterFields(f)
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
		req.Creations = append(req.Creations, acl.CreationOf(b))
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
	fr.ResourceType, fr.ResourceName, fr.ResourcePatternType, fr.Principal, fr.Host, fr.Operation,
		fr.PermissionType = acl.FilterFields(f)
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
			b := acl.BindingOfMatching(m)
			if err := codeError(b.Pattern.String()+" "+b.Entry.String(), m.ErrorCode, m.ErrorMessage); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, b)
		}
	}
	return removed, errors.Join(errs...)
}
