package controller

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// BrokerRoutes returns the wire routes through which brokers reach the
// controller, at the versions a Kafka 3.9 ZooKeeper-mode controller
// serves: AlterPartition v0–3 (key 56), ControlledShutdown v0–3 (key 7) and
// AllocateProducerIds v0 (key 67); plus InitProducerId v0–5 (key 22),
// which idempotent producers send to whichever broker they pick, this node
// included, since it is listed among the brokers. Register them on the Mux
// of the listener named in Config.Endpoints: brokers find that listener
// through the UpdateMetadata the controller sends, and discover these
// versions with ApiVersions before they send (ControlledShutdown excepted).
func (c *Controller) BrokerRoutes() []wire.Route {
	return []wire.Route{
		route(56, 0, 3, "AlterPartition", c.AlterPartition),
		route(7, 0, 3, "ControlledShutdown", c.ControlledShutdown),
		route(67, 0, 0, "AllocateProducerIds", c.AllocateProducerIds),
		route(22, 0, 5, "InitProducerId", c.InitProducerID),
	}
}

// route adapts a typed request method to a wire route: the wire server
// decodes the body for the key, so a body of another type is a bug, and
// the connection is closed.
func route[Req kmsg.Request, Resp kmsg.Response](key, minV, maxV int16, name string,
	serve func(context.Context, Req) (Resp, error)) wire.Route {
	return wire.Route{
		VersionRange: wire.VersionRange{Key: key, Min: minV, Max: maxV},
		Handler: wire.HandlerFunc(func(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
			r, ok := req.Body.(Req)
			if !ok {
				return nil, fmt.Errorf("%s: unexpected body %T", name, req.Body)
			}
			return serve(ctx, r)
		}),
	}
}
