package wirebackend

import (
	"context"
	"errors"
	"fmt"

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
	return acl.BindingsOfResources(resp.Resources), nil
}

// answerCount refuses an answer with another number of results than the
// request had items: whatever it left out would pass for a success.
func answerCount(api string, got, want int) error {
	if got != want {
		return fmt.Errorf("%s: the cluster answered %d results for %d items sent; nothing is known of the rest", api, got, want)
	}
	return nil
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
	if err := answerCount("CreateAcls", len(resp.Results), len(bindings)); err != nil {
		return err
	}
	var errs []error
	for i, r := range resp.Results {
		errs = append(errs, codeError(bindings[i].Pattern.String()+" "+bindings[i].Entry.String(), r.ErrorCode, r.ErrorMessage))
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
	if err := answerCount("DeleteAcls", len(resp.Results), 1); err != nil {
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
