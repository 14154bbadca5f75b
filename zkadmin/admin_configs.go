package zkadmin

import (
	"context"
	"errors"
	"maps"
	"sort"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/znodes"
)

// ConfigAlteration changes one config entity's overrides: a topic
// (EntityType znodes.EntityTopics), a broker (znodes.EntityBrokers, with
// EntityName a broker id or znodes.DefaultEntityName for the cluster-wide
// dynamic defaults, where max.partitions and max.broker.partitions live),
// a user (znodes.EntityUsers: EntityName is the user name, unsanitized,
// or znodes.DefaultEntityName; see admin_users.go), or a client id or IP
// (znodes.EntityClients, znodes.EntityIPs: quotas only, named as users
// are). A users, clients or ips entity left empty loses its znode, as
// Kafka's AdminZkClient removes it.
type ConfigAlteration struct {
	EntityType string
	EntityName string
	// Client, with EntityType users, makes the entity the user's quotas
	// for this client id (DefaultEntityName: for the default client id),
	// kept in /config/users/<user>/clients/<client id>, as kafka-configs'
	// --entity-type users --entity-type clients (--user, --client) does.
	Client string
	// Set adds or replaces overrides; Delete removes them (each must be
	// set now, as kafka-configs requires).
	Set    map[string]string
	Delete []string
	DryRun bool
}

// ConfigAlterResult holds the overrides before and after, and the ops.
type ConfigAlterResult struct {
	Before, After map[string]string
	Ops           []Op
	Attempts      int
}

// AlterConfigs is AdminZkClient.changeTopicConfig / changeBrokerConfig: it
// checks what a broker change adds as kafka-configs --zookeeper does
// (checkBrokerAdditions), validates the complete new set of overrides,
// then writes the entity znode and its version 2 change notification in
// one multi. The entity write expects the version read, so two concurrent
// alterations both land (the second is re-planned on the first's result)
// instead of the last one silently winning, as in Kafka. Like
// kafka-configs --zookeeper, it does not check /controller (reference
// §3.11).
func (a *Admin) AlterConfigs(ctx context.Context, req ConfigAlteration) (*ConfigAlterResult, error) {
	resource := req.resource()
	read, err := a.entityRead(ctx, req)
	if err != nil {
		return nil, err
	}
	if req.EntityType == znodes.EntityBrokers {
		if err := checkBrokerAdditions(req); err != nil {
			return nil, err
		}
	}
	out := &ConfigAlterResult{}
	plan := func(ctx context.Context, c *Cluster) ([]Op, error) {
		before, version, err := a.currentConfig(ctx, c, req)
		if err != nil {
			return nil, err
		}
		after, err := applyAlteration(resource, before, req)
		if err != nil {
			return nil, err
		}
		znodeName, l, quota := req.location()
		if req.Client != "" {
			err = validateQuotaConfig(l, resource, after)
		} else {
			err = validateEntityConfig(req.EntityType, req.EntityName, after)
		}
		if err != nil {
			return nil, err
		}
		out.Before, out.After = before, after
		if quota {
			// Emptied quota entities lose their znode, as in Kafka.
			return a.entityConfigOps(ctx, l, after, version)
		}
		data, err := znodes.EntityConfig{Config: after}.Encode()
		if err != nil {
			return nil, err
		}
		ops, err := a.putOp(ctx, znodes.ConfigEntityPath(req.EntityType, znodeName), data, version)
		if err != nil {
			return nil, err
		}
		note, err := a.notificationOps(ctx, req.EntityType, znodeName)
		if err != nil {
			return nil, err
		}
		return append(ops, note...), nil
	}
	res, err := a.writeLoop(ctx, "alter configs of "+resource, read, req.DryRun, plan)
	if err != nil {
		return nil, err
	}
	out.Ops, out.Attempts = res.ops, res.attempts
	return out, nil
}

// resource names the entity in messages: "users alice", "users alice
// clients app".
func (req ConfigAlteration) resource() string {
	if req.Client != "" {
		return req.EntityType + " " + req.EntityName + " " + znodes.EntityClients + " " + req.Client
	}
	return req.EntityType + " " + req.EntityName
}

// location is the entity's znode name under /config/<type>, and where its
// quotas live when it is a quota entity.
func (req ConfigAlteration) location() (znodeName string, l quotaLocation, quota bool) {
	if req.Client != "" {
		l = quotaLocation{entityType: znodes.EntityUsers, userClient: true,
			name: znodes.UserClientEntityName(entityZNodeName(znodes.EntityUsers, req.EntityName),
				entityZNodeName(znodes.EntityClients, req.Client))}
		return l.name, l, true
	}
	znodeName = entityZNodeName(req.EntityType, req.EntityName)
	l, quota = quotaLocationOf(req.EntityType, znodeName)
	return znodeName, l, quota
}

// entityRead checks the entity's type and name and says what to read.
func (a *Admin) entityRead(ctx context.Context, req ConfigAlteration) (ReadOptions, error) {
	if req.Client != "" && req.EntityType != znodes.EntityUsers {
		return ReadOptions{}, adminErr(KindInvalidRequest, req.resource(), "A client id narrows a user's quotas only, not %s", req.EntityType)
	}
	switch req.EntityType {
	case znodes.EntityTopics:
		return ReadOptions{Topics: []string{req.EntityName}, Configs: true}, nil
	case znodes.EntityBrokers:
		if req.EntityName != znodes.DefaultEntityName {
			if _, err := znodes.ParseBrokerID(req.EntityName); err != nil {
				return ReadOptions{}, adminErr(KindInvalidRequest, req.EntityName,
					"The entity name for brokers must be a valid integer broker id, but it is: %s", req.EntityName)
			}
		}
		return ReadOptions{}, nil
	case znodes.EntityUsers, znodes.EntityClients, znodes.EntityIPs:
		if req.EntityName == "" {
			return ReadOptions{}, adminErr(KindInvalidRequest, req.EntityName, "The entity name for %s must not be empty", req.EntityType)
		}
		if req.EntityType == znodes.EntityIPs {
			l, _ := quotaLocationOf(req.EntityType, entityZNodeName(req.EntityType, req.EntityName))
			if err := checkIPEntity(ctx, l, req.EntityType+" "+req.EntityName); err != nil {
				return ReadOptions{}, err
			}
		}
		return ReadOptions{noCluster: true}, nil // a quota entity's config concerns nothing else
	}
	return ReadOptions{}, adminErr(KindInvalidRequest, req.EntityName,
		"Entity type %q is not supported; use %s, %s, %s, %s or %s", req.EntityType, znodes.EntityTopics, znodes.EntityBrokers,
		znodes.EntityUsers, znodes.EntityClients, znodes.EntityIPs)
}

// currentConfig returns the entity's overrides and znode version (-1 when
// absent). A topic must exist; a config znode that does not decode is
// refused rather than rewritten.
func (a *Admin) currentConfig(ctx context.Context, c *Cluster, req ConfigAlteration) (map[string]string, int32, error) {
	resource := req.resource()
	if req.EntityType == znodes.EntityTopics {
		t := c.Topic(req.EntityName)
		if t == nil {
			return nil, 0, adminErr(KindUnknownTopic, req.EntityName, "Topic '%s' does not exist.", req.EntityName)
		}
		if t.ConfigErr != nil {
			return nil, 0, malformed(req.EntityName, "alter the configs of topic '"+req.EntityName+"'", t.ConfigErr)
		}
		return t.Config, t.ConfigVersion, nil
	}
	if req.EntityType == znodes.EntityBrokers && req.EntityName == znodes.DefaultEntityName {
		if c.BrokerDefaultsErr != nil {
			return nil, 0, malformed(resource, "alter the cluster-wide broker defaults", c.BrokerDefaultsErr)
		}
		return c.BrokerDefaults, c.BrokerDefaultsVersion, nil
	}
	znodeName, _, _ := req.location()
	cfg, version, err := a.ReadEntityConfig(ctx, req.EntityType, znodeName)
	if err != nil {
		var de *znodes.DecodeError
		if errors.As(err, &de) {
			return nil, 0, malformed(resource, "alter the configs of "+resource, err)
		}
		return nil, 0, err
	}
	return cfg, version, nil
}

// ReadEntityConfig reads /config/<type>/<name>: the overrides and the znode
// version, -1 when absent (no overrides). A payload that does not decode
// is a *znodes.DecodeError.
func (a *Admin) ReadEntityConfig(ctx context.Context, entityType, name string) (map[string]string, int32, error) {
	data, st, err := a.zk.Get(ctx, znodes.ConfigEntityPath(entityType, name))
	if errors.Is(err, ErrNoNode) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, 0, err
	}
	cfg, err := znodes.DecodeEntityConfig(entityType, name, data)
	return cfg.Config, st.Version, err
}

// applyAlteration returns before with req's changes; deleting a key that is
// not set is refused as kafka-configs refuses it.
func applyAlteration(resource string, before map[string]string, req ConfigAlteration) (map[string]string, error) {
	var missing []string
	for _, k := range req.Delete {
		if _, ok := before[k]; !ok {
			if _, setNow := req.Set[k]; !setNow {
				missing = append(missing, k)
			}
		}
	}
	if len(missing) > 0 {
		return nil, adminErr(KindInvalidConfig, resource, "Invalid config(s): %s", strings.Join(missing, ","))
	}
	after := maps.Clone(before)
	if after == nil {
		after = map[string]string{}
	}
	for _, k := range req.Delete {
		delete(after, k)
	}
	maps.Copy(after, req.Set)
	return after, nil
}

// validateEntityConfig checks a complete set of overrides for an entity.
func validateEntityConfig(entityType, name string, cfg map[string]string) error {
	switch entityType {
	case znodes.EntityTopics:
		return ValidateTopicConfig(name, cfg)
	case znodes.EntityUsers:
		return ValidateUserConfig(name, cfg)
	case znodes.EntityClients, znodes.EntityIPs:
		l, _ := quotaLocationOf(entityType, entityZNodeName(entityType, name))
		return validateQuotaConfig(l, entityType+" "+name, cfg)
	}
	return ValidateBrokerConfig(name, cfg)
}

// ValidateBrokerConfig checks a complete set of dynamic broker overrides
// for /config/brokers/<name>: the values, as Kafka's AdminZkClient checks
// what it writes (checkBrokerValues), then kzadmin's own rules
// (checkKzadminBrokerRules). Which names Kafka takes dynamically is
// CheckBrokerConfigChange's business: it concerns what a change sets, as
// a Kafka broker ignores the rest.
func ValidateBrokerConfig(name string, cfg map[string]string) error {
	resource := znodes.EntityBrokers + " " + name
	if err := checkBrokerValues(resource, cfg); err != nil {
		return err
	}
	return checkKzadminBrokerRules(resource, name, cfg)
}

// CheckBrokerConfigChange is what a Kafka broker checks of a change to
// /config/brokers/<name> before it authorizes it (ConfigAdminManager.
// preprocess, DynamicBrokerConfig.validateConfigs): cfg holds the
// entity's configs after the change, names them in the order the change
// gives them. Kafka's rules come first (config.CheckKafkaBrokerConfigs:
// configs it does not take dynamically, SSL configs without a listener
// prefix, the values, per-broker configs at the default), then kzadmin's.
// Every refusal is KindInvalidConfig with Kafka's message.
func CheckBrokerConfigChange(name string, names []string, cfg map[string]string) error {
	resource := znodes.EntityBrokers + " " + name
	if err := config.CheckKafkaBrokerConfigs(names, cfg, name != znodes.DefaultEntityName); err != nil {
		return adminErr(KindInvalidConfig, resource, "%s", err.Error())
	}
	return checkKzadminBrokerRules(resource, name, cfg)
}

// checkBrokerAdditions is kafka-configs --zookeeper's check of the configs
// a change adds to a broker entity (ConfigCommand.preProcessBrokerConfigs):
// Kafka's rules for dynamic broker configs, then the password configs,
// which kafka-configs encrypts with a password.encoder.secret given on
// its command line. kzadmin has no password encoder, so it refuses them.
func checkBrokerAdditions(req ConfigAlteration) error {
	names := make([]string, 0, len(req.Set))
	for k := range req.Set {
		names = append(names, k)
	}
	sort.Strings(names)
	if err := CheckBrokerConfigChange(req.EntityName, names, req.Set); err != nil {
		return err
	}
	for _, k := range names {
		if config.IsKafkaPasswordConfig(k) {
			return adminErr(KindInvalidConfig, znodes.EntityBrokers+" "+req.EntityName, "%s is a password config: "+
				"Kafka brokers store it encrypted with password.encoder.secret, which kzadmin does not have; "+
				"set it through a broker (kafka-configs --bootstrap-server)", k)
		}
	}
	return nil
}

// checkBrokerValues checks the values of a broker entity's complete
// configs with the types and validators of Kafka's dynamic broker configs
// (AdminZkClient.validateBrokerConfig), names as they are: a
// listener-prefixed config's value was checked, as its base config's,
// when the change set it.
func checkBrokerValues(resource string, cfg map[string]string) error {
	if err := config.ValidateKafkaBrokerValues(cfg); err != nil {
		return adminErr(KindInvalidConfig, resource, "%s", err.Error())
	}
	return nil
}

// checkKzadminBrokerRules are kzadmin's own rules for broker overrides:
// names are not empty, kzadmin's own dynamic keys (max.partitions, ...)
// are valid and cluster-wide, so only <default> takes them, and kzadmin's
// static keys are refused (config.ValidateDynamic). Other keys pass, as
// Kafka brokers read many dynamic configs kzadmin does not model.
func checkKzadminBrokerRules(resource, name string, cfg map[string]string) error {
	for _, k := range sortedKeys(cfg) {
		switch {
		case strings.TrimSpace(k) == "":
			return adminErr(KindInvalidConfig, resource, "Config names must not be empty")
		case config.IsDynamic(k) && name != znodes.DefaultEntityName:
			return adminErr(KindInvalidConfig, resource, "%s is cluster-wide: set it with --entity-default "+
				"(/config/brokers/<default>)", k)
		}
	}
	if err := config.ValidateDynamic(cfg); err != nil {
		return adminErr(KindInvalidConfig, resource, "%v", err)
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sortedCopy returns names sorted, leaving names as it was.
func sortedCopy(names []string) []string {
	out := append([]string(nil), names...)
	sort.Strings(out)
	return out
}
