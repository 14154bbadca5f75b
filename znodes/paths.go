package znodes

import (
	"strconv"
	"strings"
)

// Fixed znode paths (reference §1). Parents that Kafka only creates
// implicitly (/brokers, /config, /admin, /cluster) are listed too, because
// recursive creates and ACL setup need them.
const (
	ClusterPath                  = "/cluster"
	ClusterIDPath                = "/cluster/id"
	ControllerPath               = "/controller"
	ControllerEpochPath          = "/controller_epoch"
	BrokersPath                  = "/brokers"
	BrokerIDsPath                = "/brokers/ids"
	TopicsPath                   = "/brokers/topics"
	BrokerSeqIDPath              = "/brokers/seqid"
	AdminPath                    = "/admin"
	DeleteTopicsPath             = "/admin/delete_topics"
	ReassignPartitionsPath       = "/admin/reassign_partitions"
	PreferredReplicaElectionPath = "/admin/preferred_replica_election"
	IsrChangeNotificationPath    = "/isr_change_notification"
	LogDirEventNotificationPath  = "/log_dir_event_notification"
	ConfigPath                   = "/config"
	ConfigChangesPath            = "/config/changes"
	FeaturePath                  = "/feature"
	LatestProducerIDBlockPath    = "/latest_producer_id_block"
	MigrationPath                = "/migration"
	ConsumersPath                = "/consumers"
	ACLPath                      = "/kafka-acl"
	ACLChangesPath               = "/kafka-acl-changes"
	ExtendedACLPath              = "/kafka-acl-extended"
	ExtendedACLChangesPath       = "/kafka-acl-extended-changes"
	DelegationTokenPath          = "/delegation_token"
	DelegationTokensPath         = "/delegation_token/tokens"
	DelegationTokenChangesPath   = "/delegation_token/token_changes"
)

// Prefixes of PERSISTENT_SEQUENTIAL children. ZooKeeper appends a 10-digit
// zero-padded counter, e.g. "config_change_0000000012".
const (
	IsrChangePrefix    = "isr_change_"
	LogDirEventPrefix  = "log_dir_event_"
	ConfigChangePrefix = "config_change_"
	ACLChangePrefix    = "acl_changes_"
	TokenChangePrefix  = "token_change_"
)

// Paths to pass to a PERSISTENT_SEQUENTIAL create.
const (
	IsrChangeSequencePath    = IsrChangeNotificationPath + "/" + IsrChangePrefix
	LogDirEventSequencePath  = LogDirEventNotificationPath + "/" + LogDirEventPrefix
	ConfigChangeSequencePath = ConfigChangesPath + "/" + ConfigChangePrefix
	ACLChangeSequencePath    = ACLChangesPath + "/" + ACLChangePrefix
	// ExtendedACLChangeSequencePath uses the same prefix as the literal store.
	ExtendedACLChangeSequencePath = ExtendedACLChangesPath + "/" + ACLChangePrefix
	TokenChangeSequencePath       = DelegationTokenChangesPath + "/" + TokenChangePrefix
)

// Config entity types: the path segment under /config (ConfigType.ALL in
// Kafka 3.x ZK mode; client-metrics and groups are KRaft-only).
const (
	EntityTopics  = "topics"
	EntityClients = "clients"
	EntityUsers   = "users"
	EntityBrokers = "brokers"
	EntityIPs     = "ips"
	// DefaultEntityName is the cluster-wide default entity, written
	// unsanitized: /config/brokers/<default>, /config/users/<default>.
	DefaultEntityName = "<default>"
)

// ConfigEntityTypes returns the config entity types in Kafka's order.
func ConfigEntityTypes() []string {
	return []string{EntityTopics, EntityClients, EntityUsers, EntityBrokers, EntityIPs}
}

// TopLevelPersistentPaths returns the paths every Kafka broker makes sure
// exist at start-up (createTopLevelPaths, reference §0.8), in Kafka's order.
// Each is created recursively with null data, ignoring NodeExists.
func TopLevelPersistentPaths() []string {
	paths := []string{
		ConsumersPath,
		BrokerIDsPath,
		TopicsPath,
		ConfigChangesPath,
		DeleteTopicsPath,
		BrokerSeqIDPath,
		IsrChangeNotificationPath,
		LatestProducerIDBlockPath,
		LogDirEventNotificationPath,
	}
	for _, t := range ConfigEntityTypes() {
		paths = append(paths, ConfigEntityTypePath(t))
	}
	return paths
}

// JoinPath appends one child name to a parent path.
func JoinPath(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}

// Path builders. They do not validate their arguments: validate topic names
// with ValidateTopicName before building paths from untrusted input.

// BrokerIDPath is the ephemeral registration of broker id: /brokers/ids/<id>.
func BrokerIDPath(id int32) string { return BrokerIDsPath + "/" + itoa(id) }

// TopicPath is the topic's assignment znode: /brokers/topics/<topic>.
func TopicPath(topic string) string { return TopicsPath + "/" + topic }

// PartitionsPath is /brokers/topics/<topic>/partitions (null data).
func PartitionsPath(topic string) string { return TopicPath(topic) + "/partitions" }

// PartitionPath is /brokers/topics/<topic>/partitions/<p> (null data).
func PartitionPath(topic string, partition int32) string {
	return PartitionsPath(topic) + "/" + itoa(partition)
}

// PartitionStatePath is /brokers/topics/<topic>/partitions/<p>/state.
func PartitionStatePath(topic string, partition int32) string {
	return PartitionPath(topic, partition) + "/state"
}

// DeleteTopicPath is the deletion marker /admin/delete_topics/<topic>.
func DeleteTopicPath(topic string) string { return DeleteTopicsPath + "/" + topic }

// ConfigEntityTypePath is /config/<entityType>.
func ConfigEntityTypePath(entityType string) string { return ConfigPath + "/" + entityType }

// ConfigEntityPath is /config/<entityType>/<entityName>. The name must be
// sanitized already for users and clients (see SanitizeEntityName); for a
// user+client quota pass entityType "users" and UserClientEntityName(u, c).
func ConfigEntityPath(entityType, entityName string) string {
	return ConfigEntityTypePath(entityType) + "/" + entityName
}

// UserClientEntityName joins a sanitized user and client id into the entity
// name of a user+client quota: "<user>/clients/<client>".
func UserClientEntityName(sanitizedUser, sanitizedClient string) string {
	return sanitizedUser + "/" + EntityClients + "/" + sanitizedClient
}

// ParseUserClientEntityName splits "<user>/clients/<client>" into its two
// sanitized names; ok is false for any other form.
func ParseUserClientEntityName(name string) (sanitizedUser, sanitizedClient string, ok bool) {
	user, client, found := strings.Cut(name, "/"+EntityClients+"/")
	if !found || user == "" || client == "" || strings.Contains(user, "/") || strings.Contains(client, "/") {
		return "", "", false
	}
	return user, client, true
}

// ConfigChangePath is the path of one change notification child.
func ConfigChangePath(child string) string { return JoinPath(ConfigChangesPath, child) }

// IsrChangeNotificationChildPath is the path of one ISR change notification.
func IsrChangeNotificationChildPath(child string) string {
	return JoinPath(IsrChangeNotificationPath, child)
}

// LogDirEventNotificationChildPath is the path of one log dir event.
func LogDirEventNotificationChildPath(child string) string {
	return JoinPath(LogDirEventNotificationPath, child)
}

// DelegationTokenInfoPath is /delegation_token/tokens/<tokenId>.
func DelegationTokenInfoPath(tokenID string) string { return DelegationTokensPath + "/" + tokenID }

// ACLResourceTypePath is the parent of ACL nodes of one resource type and
// pattern type. Literal patterns live under /kafka-acl/<Type>; every other
// pattern type under /kafka-acl-extended/<pattern in lower case>/<Type>.
// resourceType is PascalCase ("Topic", "Group", "Cluster", ...), patternType
// is Kafka's enum name ("LITERAL", "PREFIXED").
func ACLResourceTypePath(patternType, resourceType string) string {
	if patternType == PatternLiteral {
		return ACLPath + "/" + resourceType
	}
	return ExtendedACLPath + "/" + lowerASCII(patternType) + "/" + resourceType
}

// ACLResourcePath is the znode holding the ACLs of one resource pattern.
func ACLResourcePath(patternType, resourceType, name string) string {
	return ACLResourceTypePath(patternType, resourceType) + "/" + name
}

func itoa(v int32) string { return strconv.FormatInt(int64(v), 10) }

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}
