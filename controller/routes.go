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
		{VersionRange: wire.VersionRange{Key: 56, Min: 0, Max: 3},
			Handler: wire.HandlerFunc(func(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
				r, ok := req.Body.(*kmsg.AlterPartitionRequest)
				if !ok {
					return nil, fmt.Errorf("AlterPartition: unexpected body %T", req.Body)
				}
				return c.AlterPartition(ctx, r)
			})},
		{VersionRange: wire.VersionRange{Key: 7, Min: 0, Max: 3},
			Handler: wire.HandlerFunc(func(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
				r, ok := req.Body.(*kmsg.ControlledShutdownRequest)
				if !ok {
					return nil, fmt.Errorf("ControlledShutdown: unexpected body %T", req.Body)
				}
				return c.ControlledShutdown(ctx, r)
			})},
		{VersionRange: wire.VersionRange{Key: 67, Min: 0, Max: 0},
			Handler: wire.HandlerFunc(func(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
				r, ok := req.Body.(*kmsg.AllocateProducerIDsRequest)
				if !ok {
					return nil, fmt.Errorf("AllocateProducerIds: unexpected body %T", req.Body)
				}
				return c.AllocateProducerIds(ctx, r)
			})},
		{VersionRange: wire.VersionRange{Key: 22, Min: 0, Max: 5},
			Handler: wire.HandlerFunc(func(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
				r, ok := req.Body.(*kmsg.InitProducerIDRequest)
				if !ok {
					return nil, fmt.Errorf("InitProducerId: unexpected body %T", req.Body)
				}
				return c.InitProducerID(ctx, r)
			})},
	}
}
