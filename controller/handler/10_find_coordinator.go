package handler

// FindCoordinator (key 10), v0-6, answered as a ZooKeeper-mode broker
// answers it (reference apis.md §1.5 for the authorization). kzadmind is
// listed among the brokers, in its own Metadata and, through the
// UpdateMetadata it sends, in every broker's, so clients may pick it as
// "any broker" for this request: a consumer of a group does, and failed
// with UNSUPPORTED_VERSION when kzadmind did not serve it.
//
// Behaviour, as Kafka's KafkaApis.getCoordinator:
//   - GROUP keys need DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED),
//     TRANSACTION keys DESCRIBE on the transactional id
//     (TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
//   - The key's partition of __consumer_offsets (GROUP) or
//     __transaction_state (TRANSACTION) is abs(Java hashCode of the key)
//     modulo the topic's partition count; the coordinator is that
//     partition's leader, given by its endpoint on this listener. No
//     leader, or a leader without an endpoint here, is
//     COORDINATOR_NOT_AVAILABLE.
//   - A missing internal topic is created, as Metadata's auto-creation
//     creates it (offsets.topic.* and transaction.state.log.*), and the
//     answer is COORDINATOR_NOT_AVAILABLE: the client asks again.
//   - An error answers node -1, host "" and port -1.
//
// Version notes: v0 has no key type (GROUP); v1-3 carry ErrorMessage, which
// Kafka sets to the error's default text, "NONE" on success; v4+ answer a
// list of keys, each with its own error and a null message.
//
// Differences: on a standby (not the active controller) the view has no
// topics, so every key is COORDINATOR_NOT_AVAILABLE and nothing is
// created; key type SHARE (2, KIP-932 share groups, which ZooKeeper mode
// lacks) answers INVALID_REQUEST where Kafka 3.9 fails with
// UNKNOWN_SERVER_ERROR; unknown types answer INVALID_REQUEST with Kafka's
// message, per key.

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/internal/javahash"
	"github.com/kzadmin/kzadmin/znodes"
)

// Coordinator key types.
const (
	coordinatorGroup       int8 = 0
	coordinatorTransaction int8 = 1
	coordinatorShare       int8 = 2
)

// coordinatorAnswer is one key's coordinator, or its error.
type coordinatorAnswer struct {
	code int16
	msg  string // for v1-3 errors other than the default text; "" for it
	node int32
	host string
	port int32
}

func (h *Handlers) findCoordinator(ctx context.Context, req *wire.Request, r *kmsg.FindCoordinatorRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.FindCoordinatorResponse)
	v := h.cluster.View()
	missing := ""
	defer func() {
		// Once per request, after the answers: the client asks again, and
		// finds the topic, or an error, then.
		if missing != "" && v.Active {
			_ = h.autoCreate(ctx, missing)
		}
	}()
	if r.Version >= 4 {
		for _, key := range r.CoordinatorKeys {
			a := h.coordinatorFor(ctx, req, v, r.CoordinatorType, key, &missing)
			c := kmsg.NewFindCoordinatorResponseCoordinator()
			c.Key, c.ErrorCode, c.NodeID, c.Host, c.Port = key, a.code, a.node, a.host, a.port
			if a.msg != "" {
				c.ErrorMessage = strp(a.msg)
			}
			resp.Coordinators = append(resp.Coordinators, c)
		}
		return resp
	}
	keyType := r.CoordinatorType
	if r.Version == 0 {
		keyType = coordinatorGroup
	}
	a := h.coordinatorFor(ctx, req, v, keyType, r.CoordinatorKey, &missing)
	resp.ErrorCode, resp.NodeID, resp.Host, resp.Port = a.code, a.node, a.host, a.port
	if r.Version >= 1 {
		switch {
		case a.msg != "":
			resp.ErrorMessage = strp(a.msg)
		case a.code == 0:
			resp.ErrorMessage = strp("NONE") // Errors.NONE.message()
		default:
			if text, ok := defaultText(a.code); ok {
				resp.ErrorMessage = strp(text)
			}
		}
	}
	return resp
}

// coordinatorFor finds one key's coordinator. An internal topic that
// does not exist at all is named in missing, for the caller to create.
func (h *Handlers) coordinatorFor(ctx context.Context, req *wire.Request, v *View, keyType int8, key string,
	missing *string) coordinatorAnswer {
	none := func(code int16) coordinatorAnswer { return coordinatorAnswer{code: code, node: -1, port: -1} }
	var topic string
	switch keyType {
	case coordinatorGroup:
		if !h.allows(ctx, req, OpDescribe, Resource{Type: ResourceGroup, Name: key}) {
			return none(kerr.GroupAuthorizationFailed.Code)
		}
		topic = znodes.GroupMetadataTopic
	case coordinatorTransaction:
		if !h.allows(ctx, req, OpDescribe, Resource{Type: ResourceTransactionalID, Name: key}) {
			return none(kerr.TransactionalIDAuthorizationFailed.Code)
		}
		topic = znodes.TransactionStateTopic
	case coordinatorShare:
		a := none(kerr.InvalidRequest.Code)
		a.msg = "Share groups (coordinator type 2, KIP-932) are not supported in ZooKeeper mode"
		return a
	default:
		a := none(kerr.InvalidRequest.Code)
		a.msg = fmt.Sprintf("Unknown coordinator type received: %d", keyType)
		return a
	}
	t := v.Live(topic)
	if t == nil || len(t.Partitions) == 0 {
		if v.Topic(topic) == nil {
			*missing = topic // one key type per request: one topic
		}
		return none(kerr.CoordinatorNotAvailable.Code)
	}
	partition := coordinatorPartition(key, int32(len(t.Partitions)))
	for i := range t.Partitions {
		p := &t.Partitions[i]
		if p.Partition != partition || p.Leader < 0 {
			continue
		}
		if p.Leader == v.Self.ID {
			break // kzadmind hosts no replica (it re-places any assigned to it), so it coordinates nothing
		}
		b, ok := v.Broker(p.Leader)
		if !ok {
			break
		}
		ep, ok := endpointFor(&b, h.listener)
		if !ok {
			break
		}
		return coordinatorAnswer{node: b.ID, host: ep.Host, port: ep.Port}
	}
	return none(kerr.CoordinatorNotAvailable.Code)
}

// coordinatorPartition is Kafka's partitionFor: Utils.abs of the key's
// Java String.hashCode, modulo the internal topic's partition count.
func coordinatorPartition(key string, partitions int32) int32 {
	return javaAbs(javahash.String(key)) % partitions
}

// javaAbs is Kafka's Utils.abs: the absolute value, and 0 for MinInt32,
// whose absolute value does not fit.
func javaAbs(n int32) int32 {
	switch {
	case n == -2147483648:
		return 0
	case n < 0:
		return -n
	}
	return n
}
