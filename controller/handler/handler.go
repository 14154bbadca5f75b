package handler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/mutationquota"
)

// Options configure Handlers.
type Options struct {
	// Cluster gives the controller's view. Required.
	Cluster Cluster
	// Admin does the writes. Required.
	Admin Admin
	// Elector runs ElectLeaders; nil leaves ElectLeaders unregistered.
	Elector Elector
	// Authorizer is asked at every check point; nil allows everything.
	Authorizer Authorizer
	// ACLs serves DescribeAcls, CreateAcls and DeleteAcls; nil (no
	// authorizer configured) answers them SECURITY_DISABLED, as Kafka does.
	ACLs ACLAdmin
	// Config is the static configuration. The handlers read node.id,
	// auto.create.topics.enable, delete.topic.enable and
	// partition.limits.error.code from it; the dynamic limits are
	// Admin's business, read fresh on every write.
	Config config.Config
	// ConfigSources says which layer set each of Config's keys
	// (config.Loaded.Sources): DescribeConfigs of this node's own id shows
	// a key set in the file, the environment or a flag as
	// STATIC_BROKER_CONFIG, as it does any key whose value differs from
	// the default. May be nil.
	ConfigSources map[string]config.Source
	// NodeID, when set, is the broker these handlers answer for: the id a
	// BROKER config resource may name. nil means Config.NodeID. Dev mode
	// sets it for each simulated broker that serves these handlers; such a
	// broker has no static configuration here, so DescribeConfigs of its
	// id lists its dynamic configs alone.
	NodeID *int32
	// Listener is the name of the listener these handlers serve; Metadata
	// and DescribeCluster advertise each broker's endpoint of that name.
	// "" means the first of Config.Listeners (PLAINTEXT by default).
	Listener string
	// Logger receives a line per unexpected failure.
	Logger zerolog.Logger
	// Clock is the time tokens are issued, renewed and expired at; nil
	// means time.Now.
	Clock func() time.Time
	// MutationQuotas holds the controller mutation quota's buckets
	// (KIP-599), shared by every listener's handlers of a node; nil gives
	// these handlers buckets of their own. The quotas are enforced when
	// Admin reads them (MutationRates).
	MutationQuotas *mutationquota.Manager
}

// Handlers serve the admin APIs. Create them with New and register them
// with Register (or Routes). They are safe for concurrent use.
type Handlers struct {
	cluster   Cluster
	admin     Admin
	elector   Elector
	authz     Authorizer
	acls      ACLAdmin
	quotas    QuotaAdmin    // nil: the client quota APIs are not served
	scram     ScramAdmin    // nil: the SCRAM credential APIs are not served
	tokens    TokenAdmin    // nil: the delegation-token APIs are not served
	rates     MutationRates // nil: no controller mutation quota
	mutations *mutationquota.Manager
	clock     func() time.Time
	cfg       config.Config
	nodeID    int32            // the broker answered for (Options.NodeID)
	settings  []config.Setting // cfg's keys, for DescribeConfigs of this node's id; nil for another broker
	listener  string
	limitCode int16
	log       zerolog.Logger
}

// New checks opts and returns the handlers.
func New(opts Options) (*Handlers, error) {
	if opts.Cluster == nil || opts.Admin == nil {
		return nil, errors.New("handler: Options.Cluster and Options.Admin are required")
	}
	h := &Handlers{cluster: opts.Cluster, admin: opts.Admin, elector: opts.Elector, authz: opts.Authorizer, acls: opts.ACLs,
		cfg: opts.Config, settings: opts.Config.Settings(opts.ConfigSources), listener: opts.Listener,
		limitCode: opts.Config.PartitionLimitsErrorCode, log: opts.Logger}
	h.quotas, _ = opts.Admin.(QuotaAdmin)
	h.scram, _ = opts.Admin.(ScramAdmin)
	h.tokens, _ = opts.Admin.(TokenAdmin)
	h.rates, _ = opts.Admin.(MutationRates)
	h.mutations = opts.MutationQuotas
	if h.mutations == nil {
		h.mutations = mutationquota.New(mutationquota.Options{Now: opts.Clock})
	}
	h.clock = opts.Clock
	h.nodeID = opts.Config.NodeID
	if opts.NodeID != nil && *opts.NodeID != opts.Config.NodeID {
		h.nodeID, h.settings = *opts.NodeID, nil
	}
	if h.authz == nil {
		h.authz = AllowAll{}
	}
	if h.listener == "" {
		h.listener = "PLAINTEXT"
		if len(opts.Config.Listeners) > 0 {
			h.listener = opts.Config.Listeners[0].Name
		}
	}
	if h.limitCode == 0 {
		h.limitCode = config.ErrCodePolicyViolation
	}
	return h, nil
}

// Register registers every route on m.
func (h *Handlers) Register(m *wire.Mux) error {
	for _, r := range h.Routes() {
		if err := m.Register(r); err != nil {
			return fmt.Errorf("handler: %w", err)
		}
	}
	return nil
}

// Routes returns one route per API served, at the versions of
// wire.DefaultZKBrokerVersions.
func (h *Handlers) Routes() []wire.Route {
	rs := []wire.Route{
		route(3, h.metadata),
		route(10, h.findCoordinator),
		route(16, h.listGroups),
		route(19, h.createTopics),
		route(20, h.deleteTopics),
		h.describeACLsRoute(),
		h.createACLsRoute(),
		h.deleteACLsRoute(),
		route(32, h.describeConfigs),
		route(33, h.alterConfigs),
		route(35, h.describeLogDirs),
		route(37, h.createPartitions),
		route(44, h.incrementalAlterConfigs),
		route(45, h.alterPartitionReassignments),
		route(46, h.listPartitionReassignments),
		route(60, h.describeCluster),
		route(66, h.listTransactions),
		route(75, h.describeTopicPartitions),
	}
	if h.elector != nil {
		rs = append(rs, h.electLeadersRoute())
	}
	if h.quotas != nil {
		rs = append(rs, route(48, h.describeClientQuotas), route(49, h.alterClientQuotas))
	}
	if h.scram != nil {
		rs = append(rs, route(50, h.describeUserScramCredentials), route(51, h.alterUserScramCredentials))
	}
	if h.tokens != nil {
		rs = append(rs, route(38, h.createDelegationToken), route(39, h.renewDelegationToken),
			route(40, h.expireDelegationToken), route(41, h.describeDelegationToken))
	}
	return rs
}

// route adapts a typed handler method to a wire.Route for key's range.
func route[T kmsg.Request](key int16, f func(context.Context, *wire.Request, T) kmsg.Response) wire.Route {
	return routeWithErr(key, func(ctx context.Context, req *wire.Request, r T) (kmsg.Response, error) {
		return f(ctx, req, r), nil
	})
}

// routeWithErr is route for handlers that may close the connection.
func routeWithErr[T kmsg.Request](key int16, f func(context.Context, *wire.Request, T) (kmsg.Response, error)) wire.Route {
	vr, ok := wire.ZKBrokerRange(key)
	if !ok {
		panic(fmt.Sprintf("handler: key %d has no version range", key)) // a programming error
	}
	return wire.Route{VersionRange: vr, Handler: wire.HandlerFunc(func(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
		body, ok := req.Body.(T)
		if !ok {
			return nil, fmt.Errorf("%s: unexpected body %T", kmsg.NameForKey(req.Key), req.Body)
		}
		return f(ctx, req, body)
	})}
}

// strp returns a pointer to a copy of s.
func strp(s string) *string { return &s }
