package brokersim

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// errStopped closes a connection whose request arrived as the broker was
// stopping; a dead broker answers nothing.
var errStopped = errors.New("brokersim: broker stopping")

// servedKeys are the Kafka API keys a simulated broker answers (besides
// ApiVersions, which the wire server answers itself, kzadmin's
// GetReplicaLogInfo (see get_replica_log_info.go), and the routes given in
// Options.AdminRoutes).
func servedKeys() []int16 {
	return []int16{
		kmsg.Metadata.Int16(),
		kmsg.LeaderAndISR.Int16(),
		kmsg.StopReplica.Int16(),
		kmsg.UpdateMetadata.Int16(),
		kmsg.DescribeLogDirs.Int16(),
		kmsg.AlterReplicaLogDirs.Int16(),
	}
}

// newMux registers the served keys at the versions a Kafka 3.9 ZK broker
// advertises, so ApiVersions answers as such a broker does for them.
func (b *Broker) newMux() (*wire.Mux, error) {
	handlers := map[int16]wire.HandlerFunc{
		kmsg.Metadata.Int16():            b.handleMetadata,
		kmsg.LeaderAndISR.Int16():        b.handleLeaderAndIsr,
		kmsg.StopReplica.Int16():         b.handleStopReplica,
		kmsg.UpdateMetadata.Int16():      b.handleUpdateMetadata,
		kmsg.DescribeLogDirs.Int16():     b.handleDescribeLogDirs,
		kmsg.AlterReplicaLogDirs.Int16(): b.handleAlterReplicaLogDirs,
	}
	mux := wire.NewMux()
	if err := mux.Register(b.getReplicaLogInfoRoute()); err != nil {
		return nil, fmt.Errorf("brokersim: %w", err)
	}
	for _, key := range servedKeys() {
		vr, ok := wire.ZKBrokerRange(key)
		if !ok {
			return nil, fmt.Errorf("brokersim: no Kafka 3.9 version range for key %d", key)
		}
		if err := mux.HandleFunc(vr, b.gate(handlers[key])); err != nil {
			return nil, fmt.Errorf("brokersim: %w", err)
		}
	}
	if b.set.AdminRoutes == nil {
		return mux, nil
	}
	routes, err := b.set.AdminRoutes(b.id)
	if err != nil {
		return nil, fmt.Errorf("brokersim: admin routes of broker %d: %w", b.id, err)
	}
	for _, r := range routes {
		if r.Handler == nil {
			return nil, fmt.Errorf("brokersim: admin route for key %d has no handler", r.Key)
		}
		r.Handler = b.gate(r.Handler.Handle)
		if err := mux.Register(r); err != nil {
			return nil, fmt.Errorf("brokersim: admin route: %w", err)
		}
	}
	return mux, nil
}

// gate holds requests while the broker is paused and drops them once it is
// stopping (the server's context is cancelled by Kill and Crash). Handlers
// check that context again under the broker's mutex, so a request of a
// killed incarnation never lands after Restart has reset the state.
func (b *Broker) gate(h wire.HandlerFunc) wire.HandlerFunc {
	return func(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
		if err := b.waitResumed(ctx); err != nil {
			return nil, errStopped
		}
		if ctx.Err() != nil {
			return nil, errStopped
		}
		return h(ctx, req)
	}
}

// checkControlLocked applies the checks every control request passes first
// (controller reference §6.1-6.4): a broker epoch other than -1 (unknown,
// and the default of old versions) that is older than ours is stale; then
// a controller epoch older than the largest accepted one is stale. It
// returns the error code, 0 if the request may proceed.
func (b *Broker) checkControlLocked(brokerEpoch int64, controllerEpoch int32) int16 {
	if brokerEpoch != -1 && brokerEpoch < b.epoch {
		return kerr.StaleBrokerEpoch.Code
	}
	if controllerEpoch < b.controllerEpoch {
		return kerr.StaleControllerEpoch.Code
	}
	return 0
}
