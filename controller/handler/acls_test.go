package handler

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// fakeACLs records what reaches it and answers one result per item.
type fakeACLs struct {
	describes []kmsg.DescribeACLsRequest
	creations []kmsg.CreateACLsRequestCreation
	filters   []kmsg.DeleteACLsRequestFilter
	fail      error
}

func (f *fakeACLs) DescribeACLs(_ context.Context, r *kmsg.DescribeACLsRequest) ([]kmsg.DescribeACLsResponseResource, error) {
	f.describes = append(f.describes, *r)
	if f.fail != nil {
		return nil, f.fail
	}
	res := kmsg.NewDescribeACLsResponseResource()
	res.ResourceType, res.ResourceName = 2, "t"
	acl := kmsg.NewDescribeACLsResponseResourceACL()
	acl.Principal, acl.Host, acl.Operation, acl.PermissionType = "User:a", "*", 3, 3
	res.ACLs = append(res.ACLs, acl)
	return []kmsg.DescribeACLsResponseResource{res}, nil
}

func (f *fakeACLs) CreateACLs(_ context.Context, cs []kmsg.CreateACLsRequestCreation) []kmsg.CreateACLsResponseResult {
	f.creations = append(f.creations, cs...)
	out := make([]kmsg.CreateACLsResponseResult, len(cs))
	for i := range out {
		out[i] = kmsg.NewCreateACLsResponseResult()
	}
	return out
}

func (f *fakeACLs) DeleteACLs(_ context.Context, fs []kmsg.DeleteACLsRequestFilter) []kmsg.DeleteACLsResponseResult {
	f.filters = append(f.filters, fs...)
	out := make([]kmsg.DeleteACLsResponseResult, len(fs))
	for i := range out {
		out[i] = kmsg.NewDeleteACLsResponseResult()
	}
	return out
}

// handleErr runs body through its route and returns the handler's error:
// non-nil closes the connection.
func (f *fixture) handleErr(body kmsg.Request) error {
	f.t.Helper()
	for _, r := range f.h.Routes() {
		if r.Key == body.Key() {
			decoded := kmsg.RequestForKey(body.Key())
			decoded.SetVersion(body.GetVersion())
			if err := decoded.ReadFrom(body.AppendTo(nil)); err != nil {
				f.t.Fatalf("decode request: %v", err)
			}
			_, err := r.Handler.Handle(context.Background(), &wire.Request{Key: body.Key(), Version: body.GetVersion(),
				Body: decoded, Principal: wire.AnonymousPrincipal()})
			return err
		}
	}
	f.t.Fatalf("no route for key %d", body.Key())
	return nil
}

func describeACLs(version int16, pattern int8) *kmsg.DescribeACLsRequest {
	r := kmsg.NewPtrDescribeACLsRequest()
	r.Version, r.ResourceType, r.ResourcePatternType, r.Operation, r.PermissionType = version, 1, kmsg.ACLResourcePatternType(pattern), 1, 1
	return r
}

func createACLs(version int16, pattern int8) *kmsg.CreateACLsRequest {
	r := kmsg.NewPtrCreateACLsRequest()
	r.Version = version
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourceName, c.ResourcePatternType = 2, "t", kmsg.ACLResourcePatternType(pattern)
	c.Principal, c.Host, c.Operation, c.PermissionType = "User:a", "*", 3, 3
	r.Creations = append(r.Creations, c, c)
	return r
}

func deleteACLs(version int16, pattern int8) *kmsg.DeleteACLsRequest {
	r := kmsg.NewPtrDeleteACLsRequest()
	r.Version = version
	f := kmsg.NewDeleteACLsRequestFilter()
	f.ResourceType, f.ResourcePatternType, f.Operation, f.PermissionType = 1, kmsg.ACLResourcePatternType(pattern), 1, 1
	r.Filters = append(r.Filters, f)
	return r
}

func TestACLsWithoutAuthorizer(t *testing.T) {
	f := newFixture(t, baseView())
	for v := int16(0); v <= 3; v++ {
		d := f.call(describeACLs(v, 3)).(*kmsg.DescribeACLsResponse)
		if d.ErrorCode != kerr.SecurityDisabled.Code || ptr(d.ErrorMessage) != "No Authorizer is configured on the broker" {
			t.Errorf("DescribeAcls v%d: %s", v, dump(d))
		}
		c := f.call(createACLs(v, 3)).(*kmsg.CreateACLsResponse)
		d2 := f.call(deleteACLs(v, 3)).(*kmsg.DeleteACLsResponse)
		if len(c.Results) != 2 || len(d2.Results) != 1 {
			t.Fatalf("v%d: %d creation results, %d filter results", v, len(c.Results), len(d2.Results))
		}
		for _, r := range c.Results {
			if r.ErrorCode != kerr.SecurityDisabled.Code || ptr(r.ErrorMessage) != "No Authorizer is configured." {
				t.Errorf("CreateAcls v%d: %s", v, dump(r))
			}
		}
		if r := d2.Results[0]; r.ErrorCode != kerr.SecurityDisabled.Code || ptr(r.ErrorMessage) != "No Authorizer is configured." {
			t.Errorf("DeleteAcls v%d: %s", v, dump(r))
		}
	}
}

// TestACLRequestsKafkaCannotParse: unknown codes close the connection
// before anything else is checked. v0 carries no pattern type: it decodes
// as LITERAL.
func TestACLRequestsKafkaCannotParse(t *testing.T) {
	acls := &fakeACLs{}
	f := newFixture(t, baseView(), func(o *Options) { o.ACLs = acls })
	bad := []kmsg.Request{describeACLs(1, 0), describeACLs(1, 5), createACLs(2, 0), deleteACLs(3, 9)}
	unknownOp := describeACLs(1, 3)
	unknownOp.Operation = 15
	unknownType := createACLs(1, 3)
	unknownType.Creations[1].ResourceType = 8
	unknownPerm := deleteACLs(1, 3)
	unknownPerm.Filters[0].PermissionType = 0
	bad = append(bad, unknownOp, unknownType, unknownPerm)
	for _, r := range bad {
		if err := f.handleErr(r); !errors.Is(err, errUnknownACLElements) {
			t.Errorf("%s v%d: %v, want the connection closed", kmsg.NameForKey(r.Key()), r.GetVersion(), err)
		}
	}
	if len(acls.describes)+len(acls.creations)+len(acls.filters) != 0 {
		t.Fatal("a request Kafka cannot parse reached the ACL store")
	}
	f.call(describeACLs(0, 4))
	f.call(createACLs(0, 4))
	f.call(deleteACLs(0, 4))
	if acls.describes[0].ResourcePatternType != 3 || acls.creations[0].ResourcePatternType != 3 ||
		acls.filters[0].ResourcePatternType != 3 {
		t.Fatal("a v0 request reached the store with a pattern type other than LITERAL")
	}
}

func TestACLsNeedClusterRights(t *testing.T) {
	acls := &fakeACLs{}
	f := newFixture(t, baseView(), func(o *Options) {
		o.ACLs = acls
		o.Authorizer = denyAuthz{deny(OpDescribe, ClusterResourceName): true, deny(OpAlter, ClusterResourceName): true}
	})
	d := f.call(describeACLs(1, 3)).(*kmsg.DescribeACLsResponse)
	if d.ErrorCode != kerr.ClusterAuthorizationFailed.Code || len(d.Resources) != 0 {
		t.Errorf("DescribeAcls: %s", dump(d))
	}
	for _, r := range f.call(createACLs(1, 3)).(*kmsg.CreateACLsResponse).Results {
		if r.ErrorCode != kerr.ClusterAuthorizationFailed.Code {
			t.Errorf("CreateAcls: %s", dump(r))
		}
	}
	for _, r := range f.call(deleteACLs(1, 3)).(*kmsg.DeleteACLsResponse).Results {
		if r.ErrorCode != kerr.ClusterAuthorizationFailed.Code {
			t.Errorf("DeleteAcls: %s", dump(r))
		}
	}
	if len(acls.describes)+len(acls.creations)+len(acls.filters) != 0 {
		t.Fatal("an unauthorized request reached the ACL store")
	}

	// DESCRIBE alone lists, and does not alter.
	f = newFixture(t, baseView(), func(o *Options) {
		o.ACLs = acls
		o.Authorizer = denyAuthz{deny(OpAlter, ClusterResourceName): true}
	})
	if d := f.call(describeACLs(3, 3)).(*kmsg.DescribeACLsResponse); d.ErrorCode != 0 || len(d.Resources) != 1 ||
		len(d.Resources[0].ACLs) != 1 {
		t.Errorf("DescribeAcls with DESCRIBE: %s", dump(d))
	}
	acls.fail = errors.New("znode does not decode")
	if d := f.call(describeACLs(3, 3)).(*kmsg.DescribeACLsResponse); d.ErrorCode != kerr.UnknownServerError.Code ||
		d.ErrorMessage != nil {
		t.Errorf("DescribeAcls failing: %s", dump(d))
	}
}
