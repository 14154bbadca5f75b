package differential

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The builders below return a step's req: a function of the run, so that
// a request can name the run's controller or a topic id learnt earlier.
// Request values are never modified after they are built, so sharing one
// between the two runs is safe.

type build = func(*env) kmsg.Request

func fixed(r kmsg.Request) build { return func(*env) kmsg.Request { return r } }

// unknownID is a topic id neither run ever gives a topic.
var unknownID = [16]byte{0xde, 0xad, 0xbe, 0xef, 15: 7}

// --- CreateTopics ---

func createTopics(v int16, timeout int32, validateOnly bool, topics ...kmsg.CreateTopicsRequestTopic) build {
	r := kmsg.NewPtrCreateTopicsRequest()
	r.Version, r.TimeoutMillis, r.ValidateOnly, r.Topics = v, timeout, validateOnly, topics
	return fixed(r)
}

// newTopic is a topic with counts (Kafka places it) and configs.
func newTopic(name string, partitions int32, rf int16, configs ...kmsg.CreateTopicsRequestTopicConfig) kmsg.CreateTopicsRequestTopic {
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor, t.Configs = name, partitions, rf, configs
	return t
}

// assigned is a topic with partitions 0..n-1 on the given replicas and
// -1/-1 counts, as kafka-topics --replica-assignment sends it.
func assigned(name string, replicas ...[]int32) kmsg.CreateTopicsRequestTopic {
	parts := make([]kmsg.CreateTopicsRequestTopicReplicaAssignment, len(replicas))
	for i, rs := range replicas {
		parts[i] = part(int32(i), rs...)
	}
	return assignedAt(name, parts...)
}

// assignedAt is a topic with the given partitions, ids as given.
func assignedAt(name string, parts ...kmsg.CreateTopicsRequestTopicReplicaAssignment) kmsg.CreateTopicsRequestTopic {
	t := newTopic(name, -1, -1)
	t.ReplicaAssignment = parts
	return t
}

func part(p int32, replicas ...int32) kmsg.CreateTopicsRequestTopicReplicaAssignment {
	a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
	a.Partition, a.Replicas = p, replicas
	return a
}

// withCounts sets a topic's counts (on top of an assignment, say).
func withCounts(t kmsg.CreateTopicsRequestTopic, partitions int32, rf int16) kmsg.CreateTopicsRequestTopic {
	t.NumPartitions, t.ReplicationFactor = partitions, rf
	return t
}

func withConfigs(t kmsg.CreateTopicsRequestTopic, configs ...kmsg.CreateTopicsRequestTopicConfig) kmsg.CreateTopicsRequestTopic {
	t.Configs = configs
	return t
}

func cfg(name, value string) kmsg.CreateTopicsRequestTopicConfig {
	c := kmsg.NewCreateTopicsRequestTopicConfig()
	c.Name, c.Value = name, kmsg.StringPtr(value)
	return c
}

func nullCfg(name string) kmsg.CreateTopicsRequestTopicConfig {
	c := kmsg.NewCreateTopicsRequestTopicConfig()
	c.Name = name
	return c
}

// --- Metadata ---

// metadata asks for the named topics.
func metadata(v int16, allowAuto bool, topics ...string) build {
	return fixed(metadataRequest(v, allowAuto, topics))
}

func metadataRequest(v int16, allowAuto bool, topics []string) *kmsg.MetadataRequest {
	r := kmsg.NewPtrMetadataRequest()
	r.Version, r.AllowAutoTopicCreation = v, allowAuto
	r.Topics = []kmsg.MetadataRequestTopic{}
	for _, name := range topics {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		r.Topics = append(r.Topics, t)
	}
	return r
}

// metadataAll asks for every topic: a null list (an empty one at v0).
func metadataAll(v int16) build {
	r := kmsg.NewPtrMetadataRequest()
	r.Version = v
	return fixed(r)
}

// metadataByID asks (v12) for topics by the ids this run gave them; a
// name the run never saw goes as unknownID.
func metadataByID(v int16, names ...string) build {
	return func(e *env) kmsg.Request {
		r := kmsg.NewPtrMetadataRequest()
		r.Version = v
		for _, name := range names {
			t := kmsg.NewMetadataRequestTopic()
			t.TopicID = e.id(name)
			r.Topics = append(r.Topics, t)
		}
		return r
	}
}

func (e *env) id(name string) [16]byte {
	if id, ok := e.ids[name]; ok {
		return id
	}
	return unknownID
}

// --- DeleteTopics ---

// deleteTopics deletes by name: TopicNames before v6, Topics from v6.
func deleteTopics(v int16, timeout int32, names ...string) build {
	r := kmsg.NewPtrDeleteTopicsRequest()
	r.Version, r.TimeoutMillis = v, timeout
	for _, name := range names {
		if v < 6 {
			r.TopicNames = append(r.TopicNames, name)
			continue
		}
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		r.Topics = append(r.Topics, t)
	}
	return fixed(r)
}

// deleteTopicByID deletes (v6) the topic this run gave the id of name,
// also sending the name when withName is set.
func deleteTopicByID(v int16, timeout int32, name string, withName bool) build {
	return func(e *env) kmsg.Request {
		r := kmsg.NewPtrDeleteTopicsRequest()
		r.Version, r.TimeoutMillis = v, timeout
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.TopicID = e.id(name)
		if withName {
			t.Topic = kmsg.StringPtr(name)
		}
		r.Topics = append(r.Topics, t)
		return r
	}
}

// --- CreatePartitions ---

func createPartitions(v int16, validateOnly bool, topics ...kmsg.CreatePartitionsRequestTopic) build {
	r := kmsg.NewPtrCreatePartitionsRequest()
	r.Version, r.TimeoutMillis, r.ValidateOnly, r.Topics = v, 30000, validateOnly, topics
	return fixed(r)
}

func createPartitionsTimeout(v int16, timeout int32, topics ...kmsg.CreatePartitionsRequestTopic) build {
	r := kmsg.NewPtrCreatePartitionsRequest()
	r.Version, r.TimeoutMillis, r.Topics = v, timeout, topics
	return fixed(r)
}

// grow asks for count partitions in all, placed by the controller.
func grow(name string, count int32) kmsg.CreatePartitionsRequestTopic {
	t := kmsg.NewCreatePartitionsRequestTopic()
	t.Topic, t.Count = name, count
	return t
}

// growOnto asks for count partitions in all, the new ones on the given
// replicas (a non-null assignment, even when empty).
func growOnto(name string, count int32, replicas ...[]int32) kmsg.CreatePartitionsRequestTopic {
	t := grow(name, count)
	t.Assignment = []kmsg.CreatePartitionsRequestTopicAssignment{}
	for _, rs := range replicas {
		a := kmsg.NewCreatePartitionsRequestTopicAssignment()
		a.Replicas = rs
		t.Assignment = append(t.Assignment, a)
	}
	return t
}

// --- ElectLeaders ---

// electLeaders elects for the given partitions; no topics sends a null
// list (every partition).
func electLeaders(v int16, electionType int8, topics ...kmsg.ElectLeadersRequestTopic) build {
	r := kmsg.NewPtrElectLeadersRequest()
	r.Version, r.ElectionType, r.TimeoutMillis, r.Topics = v, electionType, 30000, topics
	return fixed(r)
}

func elect(topic string, partitions ...int32) kmsg.ElectLeadersRequestTopic {
	t := kmsg.NewElectLeadersRequestTopic()
	t.Topic, t.Partitions = topic, partitions
	return t
}

// --- Reassignments ---

func alterReassignments(v int16, topics ...kmsg.AlterPartitionAssignmentsRequestTopic) build {
	r := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	r.Version, r.TimeoutMillis, r.Topics = v, 30000, topics
	return fixed(r)
}

// reassign moves one partition onto replicas; nil replicas cancels.
func reassign(topic string, partition int32, replicas []int32) kmsg.AlterPartitionAssignmentsRequestTopic {
	p := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
	p.Partition, p.Replicas = partition, replicas
	t := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	t.Topic, t.Partitions = topic, []kmsg.AlterPartitionAssignmentsRequestTopicPartition{p}
	return t
}

// listReassignments lists the given partitions; no topics sends a null
// list (every reassignment in progress).
func listReassignments(v int16, topics ...kmsg.ListPartitionReassignmentsRequestTopic) build {
	r := kmsg.NewPtrListPartitionReassignmentsRequest()
	r.Version, r.TimeoutMillis, r.Topics = v, 30000, topics
	return fixed(r)
}

func listed(topic string, partitions ...int32) kmsg.ListPartitionReassignmentsRequestTopic {
	t := kmsg.NewListPartitionReassignmentsRequestTopic()
	t.Topic, t.Partitions = topic, partitions
	return t
}

// --- DescribeCluster ---

func describeCluster(v int16, endpointType int8, includeOps bool) build {
	r := kmsg.NewPtrDescribeClusterRequest()
	r.Version, r.EndpointType, r.IncludeClusterAuthorizedOperations = v, endpointType, includeOps
	return fixed(r)
}

// --- ApiVersions ---

func apiVersions(v int16, software, softwareVersion string) build {
	r := kmsg.NewPtrApiVersionsRequest()
	r.Version, r.ClientSoftwareName, r.ClientSoftwareVersion = v, software, softwareVersion
	return fixed(r)
}

// --- ACLs ---

func describeACLs(v int16) build {
	r := kmsg.NewPtrDescribeACLsRequest()
	r.Version, r.ResourceType, r.ResourcePatternType, r.Operation, r.PermissionType = v, 1, 1, 1, 1
	if v == 0 {
		r.ResourcePatternType = 3
	}
	return fixed(r)
}

func createACLs(v int16) build {
	r := kmsg.NewPtrCreateACLsRequest()
	r.Version = v
	for _, name := range []string{"acl-a", "acl-b"} {
		c := kmsg.NewCreateACLsRequestCreation()
		c.ResourceType, c.ResourceName, c.ResourcePatternType = 2, name, 3
		c.Principal, c.Host, c.Operation, c.PermissionType = "User:alice", "*", 3, 3
		r.Creations = append(r.Creations, c)
	}
	return fixed(r)
}

func deleteACLs(v int16) build {
	r := kmsg.NewPtrDeleteACLsRequest()
	r.Version = v
	f := kmsg.NewDeleteACLsRequestFilter()
	f.ResourceType, f.ResourcePatternType, f.Operation, f.PermissionType = 2, 3, 1, 1
	r.Filters = append(r.Filters, f)
	return fixed(r)
}

// --- config resources ---

// ownID is the run's controller's id as a resource name.
func (e *env) ownID() string { return strconv.Itoa(int(e.run.Controller)) }

// ownBroker, as a broker resource's name, stands for the run's
// controller's own id.
const ownBroker = "<own id>"

func (e *env) resourceName(name string) string {
	if name == ownBroker {
		return e.ownID()
	}
	return name
}

// --- DescribeConfigs ---

func describeConfigs(v int16, synonyms, docs bool, res ...kmsg.DescribeConfigsRequestResource) build {
	return func(e *env) kmsg.Request {
		r := kmsg.NewPtrDescribeConfigsRequest()
		r.Version, r.IncludeSynonyms, r.IncludeDocumentation = v, synonyms, docs
		for _, x := range res {
			x.ResourceName = e.resourceName(x.ResourceName)
			r.Resources = append(r.Resources, x)
		}
		return r
	}
}

// described is a resource to describe: every config when no keys are
// given (a null list), else the named ones.
func described(typ kmsg.ConfigResourceType, name string, keys ...string) kmsg.DescribeConfigsRequestResource {
	x := kmsg.NewDescribeConfigsRequestResource()
	x.ResourceType, x.ResourceName, x.ConfigNames = typ, name, keys
	return x
}

// --- AlterConfigs ---

func alterConfigs(v int16, validateOnly bool, res ...kmsg.AlterConfigsRequestResource) build {
	return func(e *env) kmsg.Request {
		r := kmsg.NewPtrAlterConfigsRequest()
		r.Version, r.ValidateOnly = v, validateOnly
		for _, x := range res {
			x.ResourceName = e.resourceName(x.ResourceName)
			r.Resources = append(r.Resources, x)
		}
		return r
	}
}

func altered(typ kmsg.ConfigResourceType, name string, entries ...kmsg.AlterConfigsRequestResourceConfig) kmsg.AlterConfigsRequestResource {
	x := kmsg.NewAlterConfigsRequestResource()
	x.ResourceType, x.ResourceName, x.Configs = typ, name, entries
	return x
}

func set(name, value string) kmsg.AlterConfigsRequestResourceConfig {
	c := kmsg.NewAlterConfigsRequestResourceConfig()
	c.Name, c.Value = name, kmsg.StringPtr(value)
	return c
}

func setNull(name string) kmsg.AlterConfigsRequestResourceConfig {
	c := kmsg.NewAlterConfigsRequestResourceConfig()
	c.Name = name
	return c
}

// --- IncrementalAlterConfigs ---

func incrementalAlter(v int16, validateOnly bool, res ...kmsg.IncrementalAlterConfigsRequestResource) build {
	return func(e *env) kmsg.Request {
		r := kmsg.NewPtrIncrementalAlterConfigsRequest()
		r.Version, r.ValidateOnly = v, validateOnly
		for _, x := range res {
			x.ResourceName = e.resourceName(x.ResourceName)
			r.Resources = append(r.Resources, x)
		}
		return r
	}
}

func incremented(typ kmsg.ConfigResourceType, name string, ops ...kmsg.IncrementalAlterConfigsRequestResourceConfig) kmsg.IncrementalAlterConfigsRequestResource {
	x := kmsg.NewIncrementalAlterConfigsRequestResource()
	x.ResourceType, x.ResourceName, x.Configs = typ, name, ops
	return x
}

func op(o kmsg.IncrementalAlterConfigOp, name, value string) kmsg.IncrementalAlterConfigsRequestResourceConfig {
	c := opNull(o, name)
	c.Value = kmsg.StringPtr(value)
	return c
}

func opNull(o kmsg.IncrementalAlterConfigOp, name string) kmsg.IncrementalAlterConfigsRequestResourceConfig {
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Op = name, o
	return c
}

// --- Metadata and DeleteTopics entries by name or id ---

// metadataTopics asks for the given entries, built by byName, byID and
// byNameAndID.
func metadataTopics(v int16, entries ...func(*env) kmsg.MetadataRequestTopic) build {
	return func(e *env) kmsg.Request {
		r := metadataRequest(v, false, nil)
		for _, entry := range entries {
			r.Topics = append(r.Topics, entry(e))
		}
		return r
	}
}

func byName(name string) func(*env) kmsg.MetadataRequestTopic {
	return metadataEntry(name, true, false)
}

// byID names the topic by the id this run gave it (unknownID when none).
func byID(name string) func(*env) kmsg.MetadataRequestTopic { return metadataEntry(name, false, true) }

func byNameAndID(name string) func(*env) kmsg.MetadataRequestTopic {
	return metadataEntry(name, true, true)
}

func metadataEntry(name string, withName, withID bool) func(*env) kmsg.MetadataRequestTopic {
	return func(e *env) kmsg.MetadataRequestTopic {
		t := kmsg.NewMetadataRequestTopic()
		if withName {
			t.Topic = kmsg.StringPtr(name)
		}
		if withID {
			t.TopicID = e.id(name)
		}
		return t
	}
}

// metadataOps asks for the named topics with the authorized-operations
// flags (the cluster's is sent at v8-v10 only).
func metadataOps(v int16, topicOps, clusterOps bool, topics ...string) build {
	r := metadataRequest(v, false, topics)
	r.IncludeTopicAuthorizedOperations, r.IncludeClusterAuthorizedOperations = topicOps, clusterOps
	return fixed(r)
}

// metadataOpsByID asks (v12) for topics by id, with their authorized
// operations.
func metadataOpsByID(v int16, names ...string) build {
	return func(e *env) kmsg.Request {
		r := metadataByID(v, names...)(e).(*kmsg.MetadataRequest)
		r.IncludeTopicAuthorizedOperations = true
		return r
	}
}

// deleteTopicsEntries deletes (v6) the given entries, built by delByName
// and delByID.
func deleteTopicsEntries(v int16, timeout int32, entries ...func(*env) kmsg.DeleteTopicsRequestTopic) build {
	return func(e *env) kmsg.Request {
		r := kmsg.NewPtrDeleteTopicsRequest()
		r.Version, r.TimeoutMillis = v, timeout
		for _, entry := range entries {
			r.Topics = append(r.Topics, entry(e))
		}
		return r
	}
}

func delByName(name string) func(*env) kmsg.DeleteTopicsRequestTopic {
	return func(*env) kmsg.DeleteTopicsRequestTopic {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		return t
	}
}

// delByID names the topic by the id this run gave it (unknownID when none).
func delByID(name string) func(*env) kmsg.DeleteTopicsRequestTopic {
	return func(e *env) kmsg.DeleteTopicsRequestTopic {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.TopicID = e.id(name)
		return t
	}
}

// --- client quotas and SCRAM credentials ---

// quotaPart is one entity part; name "" with def true is <default> (null).
type quotaPart struct {
	typ, name string
	def       bool
}

func qUser(name string) quotaPart   { return quotaPart{typ: "user", name: name} }
func qClient(name string) quotaPart { return quotaPart{typ: "client-id", name: name} }
func qIP(name string) quotaPart     { return quotaPart{typ: "ip", name: name} }
func qDefault(typ string) quotaPart { return quotaPart{typ: typ, def: true} }

// quotaOp sets key to value; remove removes it.
type quotaOp struct {
	key    string
	value  float64
	remove bool
}

func quotaEntry(parts []quotaPart, ops ...quotaOp) kmsg.AlterClientQuotasRequestEntry {
	e := kmsg.NewAlterClientQuotasRequestEntry()
	for _, p := range parts {
		ent := kmsg.NewAlterClientQuotasRequestEntryEntity()
		ent.Type = p.typ
		if !p.def {
			ent.Name = kmsg.StringPtr(p.name)
		}
		e.Entity = append(e.Entity, ent)
	}
	for _, o := range ops {
		op := kmsg.NewAlterClientQuotasRequestEntryOp()
		op.Key, op.Value, op.Remove = o.key, o.value, o.remove
		e.Ops = append(e.Ops, op)
	}
	return e
}

func alterQuotas(v int16, validateOnly bool, entries ...kmsg.AlterClientQuotasRequestEntry) build {
	r := kmsg.NewPtrAlterClientQuotasRequest()
	r.Version, r.ValidateOnly, r.Entries = v, validateOnly, entries
	return fixed(r)
}

// quotaComponent matches: kind 0 the name, 1 the default, 2 any.
func quotaComponent(typ string, kind int8, name string) kmsg.DescribeClientQuotasRequestComponent {
	c := kmsg.NewDescribeClientQuotasRequestComponent()
	c.EntityType, c.MatchType = typ, kmsg.QuotasMatchType(kind)
	if kind == 0 {
		c.Match = kmsg.StringPtr(name)
	}
	return c
}

func describeQuotas(v int16, strict bool, components ...kmsg.DescribeClientQuotasRequestComponent) build {
	r := kmsg.NewPtrDescribeClientQuotasRequest()
	r.Version, r.Strict, r.Components = v, strict, components
	return fixed(r)
}

// scramUpsert sets user's credential; the salted password is 32 bytes of
// seed (the server only hashes it).
func scramUpsert(user string, mech int8, iterations int32, seed byte) kmsg.AlterUserSCRAMCredentialsRequestUpsertion {
	u := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
	u.Name, u.Mechanism, u.Iterations = user, mech, iterations
	u.Salt = []byte("salt-of-" + user)
	for range 32 {
		u.SaltedPassword = append(u.SaltedPassword, seed)
	}
	return u
}

func scramDelete(user string, mech int8) kmsg.AlterUserSCRAMCredentialsRequestDeletion {
	d := kmsg.NewAlterUserSCRAMCredentialsRequestDeletion()
	d.Name, d.Mechanism = user, mech
	return d
}

func alterScram(ups []kmsg.AlterUserSCRAMCredentialsRequestUpsertion, dels ...kmsg.AlterUserSCRAMCredentialsRequestDeletion) build {
	r := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
	r.Upsertions, r.Deletions = ups, dels
	return fixed(r)
}

// describeScram names users; none means every user (a null list).
func describeScram(users ...string) build {
	r := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	for _, u := range users {
		n := kmsg.NewDescribeUserSCRAMCredentialsRequestUser()
		n.Name = u
		r.Users = append(r.Users, n)
	}
	return fixed(r)
}

// --- Delegation tokens ---

func createToken(version int16, owner *string, renewers ...string) build {
	r := kmsg.NewPtrCreateDelegationTokenRequest()
	r.Version, r.MaxLifetimeMillis = version, -1
	if owner != nil {
		user := "User"
		r.OwnerPrincipalType, r.OwnerPrincipalName = &user, owner
	}
	for _, n := range renewers {
		r.Renewers = append(r.Renewers, kmsg.CreateDelegationTokenRequestRenewer{PrincipalType: "User", PrincipalName: n})
	}
	return fixed(r)
}

func renewToken(version int16, period int64) build {
	r := kmsg.NewPtrRenewDelegationTokenRequest()
	r.Version, r.HMAC, r.RenewTimeMillis = version, []byte("not-a-token"), period
	return fixed(r)
}

func expireToken(version int16, period int64) build {
	r := kmsg.NewPtrExpireDelegationTokenRequest()
	r.Version, r.HMAC, r.ExpiryPeriodMillis = version, []byte("not-a-token"), period
	return fixed(r)
}

// describeTokens lists owners; nil owners asks for every owner.
func describeTokens(version int16, owners []string) build {
	r := kmsg.NewPtrDescribeDelegationTokenRequest()
	r.Version = version
	if owners != nil {
		r.Owners = []kmsg.DescribeDelegationTokenRequestOwner{}
		for _, o := range owners {
			r.Owners = append(r.Owners, kmsg.DescribeDelegationTokenRequestOwner{PrincipalType: "User", PrincipalName: o})
		}
	}
	return fixed(r)
}
