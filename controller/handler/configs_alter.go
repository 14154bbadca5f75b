package handler

// What AlterConfigs (33) and IncrementalAlterConfigs (44) share, in the
// order a Kafka 3.9 ZooKeeper-mode broker takes it (KafkaApis and
// ConfigAdminManager.preprocess):
//  1. A resource named twice (same type and name): every copy
//     INVALID_REQUEST "Each resource must appear at most once.".
//  2. Before any authorization, per resource: a config named twice is
//     INVALID_REQUEST "Error due to duplicate config keys"; null values
//     where the API refuses them are INVALID_REQUEST "Null value not
//     supported for : k1, k2"; then the type: a BROKER resource other than
//     the default ("") must name this node ("Node id must be an integer,
//     but it is: X", "Unexpected broker id, expected N, but received X"),
//     and the configs it would hold must be ones a Kafka broker takes
//     dynamically at that level, with valid values ("Cannot update these
//     configs dynamically: Set(k)", ...; configs_broker.go), TOPIC and
//     CLIENT_METRICS go on, and any other type is INVALID_REQUEST
//     "Unknown resource type N" on its own (IncrementalAlterConfigs
//     answers BROKER_LOGGER here, see alterBrokerLogger).
//  3. ALTER_CONFIGS on the topic, or the cluster for the others; a denial
//     answers TOPIC_/CLUSTER_AUTHORIZATION_FAILED with no message. Kafka
//     has no answer for a denied CLIENT_METRICS resource and throws, which
//     fails the whole request after the others were altered: every
//     resource answers INVALID_REQUEST then.
//  4. The API's own work; a CLIENT_METRICS resource is INVALID_REQUEST
//     "AlterConfigs is only supported for topics and brokers, but resource
//     type is CLIENT_METRICS".
//
// Answers come in request order: Kafka reassembles the preprocessed and
// the processed results in the order of the request.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// alterTarget names one resource of an alter request.
type alterTarget struct {
	typ  kmsg.ConfigResourceType
	name string
}

// alterEach answers an alter request's resources in request order (steps
// 1-3 of the file comment): pre makes the API's preprocessing checks and
// says whether its answer is final (an error, or a resource it handled
// itself); apply does the work on an authorized resource.
func (h *Handlers) alterEach(ctx context.Context, req *wire.Request, targets []alterTarget,
	pre func(i int) (apiError, bool), apply func(i int) apiError) []apiError {
	dups := duplicateResources(len(targets), func(i int) string {
		return resourceKey(targets[i].typ, targets[i].name)
	})
	out := make([]apiError, len(targets))
	var whole *apiError
	for i, t := range targets {
		if dups[i] {
			out[i] = newAPIError(kerr.InvalidRequest.Code, "Each resource must appear at most once.")
			continue
		}
		if e, final := pre(i); final {
			out[i] = e
			continue
		}
		authzRes, deniedCode := configAuthz(t.typ, t.name)
		if h.allows(ctx, req, OpAlterConfigs, authzRes) {
			out[i] = apply(i)
			continue
		}
		out[i] = codeOnly(deniedCode)
		if t.typ == kmsg.ConfigResourceTypeClientMetrics && whole == nil {
			e := newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf("Unexpected resource type %s for resource %s", t.typ, t.name))
			whole = &e
		}
	}
	if whole != nil {
		for i := range out {
			out[i] = *whole
		}
	}
	return out
}

// checkAlterKeys is the first of preprocess's checks, for every resource
// type: a config named twice, then the configs whose value is null where
// the API refuses one (nulls, in request order).
func checkAlterKeys(names, nulls []string) apiError {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return newAPIError(kerr.InvalidRequest.Code, "Error due to duplicate config keys")
		}
		seen[n] = true
	}
	if len(nulls) > 0 {
		return newAPIError(kerr.InvalidRequest.Code, "Null value not supported for : "+strings.Join(nulls, ", "))
	}
	return errNone
}

// checkAlterType is preprocess's check of the resource type and, for a
// BROKER resource, its name.
func (h *Handlers) checkAlterType(typ kmsg.ConfigResourceType, name string) apiError {
	switch typ {
	case kmsg.ConfigResourceTypeBroker:
		_, e := h.alterBrokerEntity(name)
		return e
	case kmsg.ConfigResourceTypeTopic, kmsg.ConfigResourceTypeClientMetrics:
		return errNone
	}
	return newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf("Unknown resource type %d", typ))
}

// alterBrokerEntity resolves a BROKER resource of the alter APIs to its
// config entity, as brokerEntity does for DescribeConfigs, but with the
// alter APIs' wording: Kafka's ConfigAdminManager says "Node id" for a
// name that is not a number and offers no empty string for another id.
func (h *Handlers) alterBrokerEntity(name string) (string, apiError) {
	return h.resolveBrokerEntity(name, "Node id must be an integer, but it is: %s",
		"Unexpected broker id, expected %d, but received %s")
}

// alterBrokerLogger answers a BROKER_LOGGER resource of
// IncrementalAlterConfigs in preprocessing, as Kafka's RuntimeLoggerManager
// does, on a node without Log4j loggers: kzadmin has none, so a SET or a
// DELETE always names a logger that does not exist, and a resource with
// no operations changes nothing.
func (h *Handlers) alterBrokerLogger(ctx context.Context, req *wire.Request, res kmsg.IncrementalAlterConfigsRequestResource) apiError {
	if !h.allows(ctx, req, OpAlterConfigs, ClusterResource()) {
		return codeOnly(kerr.ClusterAuthorizationFailed.Code)
	}
	id, err := strconv.ParseInt(res.ResourceName, 10, 32)
	if err != nil {
		return newAPIError(kerr.InvalidRequest.Code, "Node id must be an integer, but it is: "+res.ResourceName)
	}
	if int32(id) != h.nodeID {
		// Kafka's wording, but naming the id asked for: Kafka's message
		// prints its own id twice.
		return newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf(
			"Unexpected node id. Expected %d, but received %s", h.nodeID, res.ResourceName))
	}
	for _, c := range res.Configs {
		switch c.Op {
		case kmsg.IncrementalAlterConfigOpSet, kmsg.IncrementalAlterConfigOpDelete:
			return newAPIError(kerr.InvalidConfig.Code, fmt.Sprintf("Logger %s does not exist!", c.Name))
		case kmsg.IncrementalAlterConfigOpAppend, kmsg.IncrementalAlterConfigOpSubtract:
			return newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf(
				"%s operation is not allowed for the BROKER_LOGGER resource", c.Op))
		default:
			// Kafka fails here with a NullPointerException (an
			// UNKNOWN_SERVER_ERROR); the topic path's answer says why.
			return newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf("Unknown config operation %d", c.Op))
		}
	}
	return errNone
}
