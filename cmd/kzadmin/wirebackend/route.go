package wirebackend

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// atController sends a request that kgo would send to any broker to the
// controller instead. kgo routes every kmsg.AdminRequest to the
// controller it knows from Metadata (and forgets it when a dial fails);
// wrapping the request adds that marker and changes nothing on the wire.
type atController struct{ kmsg.Request }

// IsAdminRequest marks the request for kgo's controller routing.
func (atController) IsAdminRequest() {}

// requestor issues one request; the pager takes one so that its splitting
// and paging can be tested against a fake server.
type requestor func(ctx context.Context, req kmsg.Request) (kmsg.Response, error)

// controllerRequest sends req to the controller and records that the
// cluster answered.
func (b *Backend) controllerRequest(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	resp, err := b.cl.Request(ctx, atController{req})
	return resp, b.note(err)
}

// request sends req where kgo sends it (admin requests to the controller,
// BROKER config resources to their broker, Metadata to any node).
func (b *Backend) request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	resp, err := b.cl.Request(ctx, req)
	return resp, b.note(err)
}

// responseAs checks a response's type: a mismatch means a bug, not a
// cluster problem.
func responseAs[R kmsg.Response](resp kmsg.Response, err error) (R, error) {
	var zero R
	if err != nil {
		return zero, err
	}
	r, ok := resp.(R)
	if !ok {
		return zero, fmt.Errorf("%s: unexpected response %T", kmsg.NameForKey(resp.Key()), resp)
	}
	return r, nil
}
