package differential

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Election types of ElectLeaders v1+.
const (
	preferred int8 = 0
	unclean   int8 = 1
)

func electLeadersCase() testCase {
	const t = "el-topic"
	return testCase{name: "elect-leaders", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned(t, []int32{1, 2}, []int32{2, 3}, []int32{3, 1}))},
		{name: "v0-preferred-not-needed", req: electLeaders(0, preferred, elect(t, 0, 1))},
		{name: "v1-unknown-topic", req: electLeaders(1, preferred, elect("el-missing", 0))},
		{name: "v1-unknown-partition", req: electLeaders(1, preferred, elect(t, 7))},
		{name: "v1-unclean-with-leader", req: electLeaders(1, unclean, elect(t, 0))},
		{name: "v2-partition-twice", req: electLeaders(2, preferred, elect(t, 2, 2))},
		{name: "v2-topic-twice", req: electLeaders(2, preferred, elect(t, 0), elect(t, 1))},
		// A null list means every partition; Kafka then lists only the
		// partitions that needed an election or failed.
		{name: "v0-all", req: electLeaders(0, preferred)},
		{name: "v2-all", req: electLeaders(2, preferred)},
		{name: "v2-unknown-type", req: electLeaders(2, 5, elect(t, 0))},
	}}
}

func reassignmentsCase() testCase {
	const t = "ra-topic"
	return testCase{name: "reassignments", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned(t, []int32{1, 2}, []int32{2, 3}))},
		{name: "v0-unknown-topic", req: alterReassignments(0, reassign("ra-missing", 0, []int32{1, 2}))},
		{name: "v0-unknown-partition", req: alterReassignments(0, reassign(t, 5, []int32{1, 2}))},
		{name: "v0-unknown-broker", req: alterReassignments(0, reassign(t, 0, []int32{1, 9}))},
		{name: "v0-duplicate-replicas", req: alterReassignments(0, reassign(t, 0, []int32{1, 1}))},
		{name: "v0-empty-replicas", req: alterReassignments(0, reassign(t, 0, []int32{}))},
		{name: "v0-negative-replica", req: alterReassignments(0, reassign(t, 0, []int32{1, -1}))},
		{name: "v0-cancel-idle", req: alterReassignments(0, reassign(t, 0, nil))},
		{name: "v0-cancel-unknown-topic", req: alterReassignments(0, reassign("ra-missing", 0, nil))},
		{name: "v0-several", req: alterReassignments(0, reassign(t, 1, nil), reassign(t, 0, []int32{}), reassign("ra-missing", 0, nil))},
		{name: "v0-list-all", req: listReassignments(0)},
		{name: "v0-list-named", req: listReassignments(0, listed(t, 0, 1), listed("ra-missing", 0))},
	}}
}

func describeClusterCase() testCase {
	return testCase{name: "describe-cluster", steps: []step{
		{name: "v0", req: describeCluster(0, 1, false)},
		{name: "v0-authorized-operations", req: describeCluster(0, 1, true)},
		{name: "v1-brokers", req: describeCluster(1, 1, false)},
		{name: "v1-controllers", req: describeCluster(1, 2, false)},
		{name: "v1-unknown-endpoint-type", req: describeCluster(1, 9, false)},
		{name: "v1-authorized-operations", req: describeCluster(1, 1, true)},
		{name: "v1-controllers-authorized-operations", req: describeCluster(1, 2, true)},
	}}
}

// apiVersionsCase: the answers but for the APIs served (masked): the
// feature fields come from /feature, which each run's controller wrote
// Enabled with no features at its failover (epoch 0).
func apiVersionsCase() testCase {
	return testCase{name: "api-versions", steps: []step{
		{name: "v0", req: apiVersions(0, "", "")},
		{name: "v2", req: apiVersions(2, "", "")},
		{name: "v3", req: apiVersions(3, "kzadmin-differential", "1.0")},
		{name: "v4", req: apiVersions(4, "kzadmin-differential", "1.0")},
		{name: "v3-invalid-software-name", req: apiVersions(3, "-bad name-", "1.0")},
		{name: "v9-unsupported", req: apiVersions(9, "kzadmin-differential", "1.0")},
	}}
}

// mutationQuotaCase: KIP-599's controller mutation quota, 1 partition/s
// for every client id (a bucket of 11 each). The broker applies the quota
// when it reads the change notification, so a probe on a client id of its
// own grows a topic by 12 partitions at a time until a permissive answer
// reports a throttle time. Each client id below then starts with a full
// bucket: a strict mutation that finds tokens left passes and takes the
// bucket below zero, and the next strict one is refused. Only one refusal
// per client id is compared: Kafka then mutes the connection until the
// bucket is back at about zero, where the next answer depends on the
// millisecond.
func mutationQuotaCase() testCase {
	const a, b, c, probe = "mq-a", "mq-b", "mq-c", "mq-probe"
	everyClient := []quotaPart{qDefault("client-id")}
	probeGrows := func(e *env) kmsg.Request {
		r := kmsg.NewPtrCreatePartitionsRequest()
		r.Version, r.TimeoutMillis = 2, 30000
		r.Topics = []kmsg.CreatePartitionsRequestTopic{grow(probe, int32(1+12*e.next("mq-probe")))}
		return r
	}
	throttled := func(resp kmsg.Response) error {
		if r := resp.(*kmsg.CreatePartitionsResponse); r.ThrottleMillis == 0 || len(r.Topics) != 1 || r.Topics[0].ErrorCode != 0 {
			return fmt.Errorf("no throttle time yet: %+v", r)
		}
		return nil
	}
	return testCase{name: "controller-mutation-quota", steps: []step{
		{name: "setup", req: createTopics(4, 30000, false, newTopic(c, 1, 1), newTopic(probe, 1, 1))},
		{name: "set-quota", req: alterQuotas(1, false, quotaEntry(everyClient, quotaOp{key: "controller_mutation_rate", value: 1}))},
		{name: "probe-until-throttled", req: probeGrows, until: throttled, client: "mq-probe"},
		// Creating: v5 is permissive, v6 strict; validateOnly takes nothing.
		{name: "v5-create-permissive", req: createTopics(5, 30000, false, newTopic(b, 1, 1)), client: "mq-create"},
		{name: "v6-validate-only", req: createTopics(6, 30000, true, newTopic(a, 30, 1)), client: "mq-create"},
		{name: "v6-create-takes-the-bucket", req: createTopics(6, 30000, false, newTopic(a, 12, 1)), client: "mq-create"},
		{name: "v6-create-throttled", req: createTopics(6, 30000, false, newTopic("mq-refused", 1, 1)), client: "mq-create"},
		// Adding partitions: v3 is strict.
		{name: "v3-create-partitions-takes-the-bucket", req: createPartitions(3, false, grow(c, 13)), client: "mq-grow"},
		{name: "v3-create-partitions-throttled", req: createPartitions(3, false, grow(c, 14)), client: "mq-grow"},
		// Deleting: v5 is strict; each topic takes its partition count.
		{name: "v5-delete-takes-the-bucket", req: deleteTopics(5, 30000, a), client: "mq-delete"},
		{name: "v5-delete-throttled", req: deleteTopics(5, 30000, b), client: "mq-delete"},
		{name: "remove-quota", req: alterQuotas(1, false, quotaEntry(everyClient, quotaOp{key: "controller_mutation_rate", remove: true}))},
		{name: "cleanup", req: deleteTopics(4, 30000, b, c, probe), cleanup: "removes the case's topics"},
	}}
}

// aclsCase: neither run configures an authorizer, so every ACL API
// answers SECURITY_DISABLED, with Kafka's messages.
func aclsCase() testCase {
	return testCase{name: "acls", steps: []step{
		{name: "describe-v0", req: describeACLs(0)},
		{name: "describe-v3", req: describeACLs(3)},
		{name: "create-v0", req: createACLs(0)},
		{name: "create-v3", req: createACLs(3)},
		{name: "delete-v1", req: deleteACLs(1)},
		{name: "delete-v3", req: deleteACLs(3)},
	}}
}

// allCases is every case, in the order both runs send them.
func allCases() []testCase {
	return []testCase{
		createTopicsCase(),
		metadataCase(),
		deleteTopicsCase(),
		createPartitionsCase(),
		describeConfigsCase(),
		alterConfigsCase(),
		incrementalAlterConfigsCase(),
		electLeadersCase(),
		reassignmentsCase(),
		describeClusterCase(),
		apiVersionsCase(),
		createTopicsConfigsCase(),
		createPartitionsMoreCase(),
		deleteTopicsMoreCase(),
		metadataMoreCase(),
		describeConfigsMoreCase(),
		incrementalAlterMoreCase(),
		electLeadersMoreCase(),
		reassignmentsMoreCase(),
		aclsCase(),
		quotasCase(),
		scramCase(),
		tokensCase(),
		mutationQuotaCase(),
	}
}

// quotasCase: client quotas written, described with each kind of filter,
// refused, and removed. Any broker answers these in Kafka; the request
// goes to the controller broker there, to kzadmind here.
func quotasCase() testCase {
	const (
		exactly = 0
		byDef   = 1
		anyOf   = 2
	)
	set := func(k string, v float64) quotaOp { return quotaOp{key: k, value: v} }
	parts := func(ps ...quotaPart) []quotaPart { return ps }
	return testCase{name: "client-quotas", steps: []step{
		{name: "v0-describe-none", req: describeQuotas(0, false)},
		{name: "v0-alter", req: alterQuotas(0, false,
			quotaEntry(parts(qUser("alice")), set("producer_byte_rate", 1024), set("request_percentage", 12.5)),
			quotaEntry(parts(qClient("app-1")), set("controller_mutation_rate", 10)),
			quotaEntry(parts(qUser("alice"), qClient("app-1")), set("consumer_byte_rate", 2048)),
			quotaEntry(parts(qDefault("user")), set("producer_byte_rate", 100)),
			quotaEntry(parts(qUser("CN=bob,O=x*"), qDefault("client-id")), set("consumer_byte_rate", 4096.0000001)),
			quotaEntry(parts(qDefault("ip")), set("connection_creation_rate", 50)),
			quotaEntry(parts(qIP("127.0.0.1")), set("connection_creation_rate", 5)),
		)},
		{name: "v1-alter-refused", req: alterQuotas(1, false,
			quotaEntry(nil, set("producer_byte_rate", 1)),
			quotaEntry(parts(quotaPart{typ: "group", name: "g"}), set("producer_byte_rate", 1)),
			quotaEntry(parts(qUser("")), set("producer_byte_rate", 1)),
			quotaEntry(parts(qIP("10.0.0.1"), qUser("carol")), set("producer_byte_rate", 1)),
			quotaEntry(parts(qClient("app-2")), set("producer_byte_rate", 1.5)),
			quotaEntry(parts(qClient("app-3")), set("retention.ms", 1)),
			quotaEntry(parts(qIP("10.0.0.2")), set("producer_byte_rate", 1)),
			quotaEntry(parts(qIP("not a host")), set("connection_creation_rate", 1)),
		)},
		{name: "v1-alter-ipv6", req: alterQuotas(1, false, quotaEntry(parts(qIP("::1")), set("connection_creation_rate", 1)))},
		{name: "v1-alter-validate-only", req: alterQuotas(1, true,
			quotaEntry(parts(qUser("dave")), set("producer_byte_rate", 1)))},
		{name: "v0-describe-all", req: describeQuotas(0, false)},
		{name: "v1-describe-user", req: describeQuotas(1, false, quotaComponent("user", exactly, "alice"))},
		{name: "v1-describe-user-strict", req: describeQuotas(1, true, quotaComponent("user", exactly, "alice"))},
		{name: "v1-describe-default-user-strict", req: describeQuotas(1, true, quotaComponent("user", byDef, ""))},
		{name: "v1-describe-any-client-strict", req: describeQuotas(1, true, quotaComponent("client-id", anyOf, ""))},
		{name: "v1-describe-users-and-clients-strict", req: describeQuotas(1, true,
			quotaComponent("user", anyOf, ""), quotaComponent("client-id", anyOf, ""))},
		{name: "v1-describe-sanitized-user", req: describeQuotas(1, false, quotaComponent("user", exactly, "CN=bob,O=x*"))},
		{name: "v1-describe-validate-only-wrote-nothing", req: describeQuotas(1, true, quotaComponent("user", exactly, "dave"))},
		{name: "v1-describe-any-ip", req: describeQuotas(1, false, quotaComponent("ip", anyOf, ""))},
		{name: "v1-describe-ip-strict", req: describeQuotas(1, true, quotaComponent("ip", exactly, "127.0.0.1"))},
		{name: "v1-describe-ip-with-user", req: describeQuotas(1, false,
			quotaComponent("ip", anyOf, ""), quotaComponent("user", anyOf, ""))},
		{name: "v1-describe-user-twice", req: describeQuotas(1, false,
			quotaComponent("user", anyOf, ""), quotaComponent("user", exactly, "alice"))},
		{name: "v1-describe-custom-type", req: describeQuotas(1, false, quotaComponent("group", anyOf, ""))},
		{name: "v1-describe-empty-type", req: describeQuotas(1, false, quotaComponent("", anyOf, ""))},
		{name: "v1-describe-unknown-match", req: describeQuotas(1, false, quotaComponent("user", 7, ""))},
		{name: "v1-alter-scram-key", req: alterQuotas(1, false, quotaEntry(parts(qUser("alice")), set("SCRAM-SHA-256", 1)))},
		{name: "v1-alter-remove", req: alterQuotas(1, false,
			quotaEntry(parts(qUser("alice"), qClient("app-1")), quotaOp{key: "consumer_byte_rate", remove: true}),
			quotaEntry(parts(qIP("127.0.0.1")), quotaOp{key: "connection_creation_rate", remove: true}),
		)},
		{name: "v1-describe-after-remove", req: describeQuotas(1, false)},
	}}
}

// scramCase: SCRAM credentials upserted, refused, described and deleted.
func scramCase() testCase {
	const sha256, sha512 = 1, 2
	ups := func(us ...kmsg.AlterUserSCRAMCredentialsRequestUpsertion) []kmsg.AlterUserSCRAMCredentialsRequestUpsertion {
		return us
	}
	return testCase{name: "scram-credentials", steps: []step{
		{name: "describe-none", req: describeScram()},
		{name: "alter", req: alterScram(ups(
			scramUpsert("alice", sha256, 4096, 1),
			scramUpsert("alice", sha512, 8192, 2),
			scramUpsert("CN=bob,O=x*", sha512, 16384, 3),
		))},
		{name: "alter-refused", req: alterScram(ups(
			scramUpsert("dave", 0, 4096, 1),
			scramUpsert("erin", sha256, 100, 1),
			scramUpsert("frank", sha256, 20000, 1),
			scramUpsert("gina", sha256, 4096, 1),
			scramUpsert("gina", sha256, 8192, 1),
			scramUpsert("", sha256, 4096, 1),
		), scramDelete("carol", sha256), scramDelete("henry", 9))},
		{name: "describe-all", req: describeScram()},
		{name: "describe-named", req: describeScram("alice", "", "zed", "CN=bob,O=x*", "alice")},
		{name: "delete", req: alterScram(nil, scramDelete("alice", sha512), scramDelete("CN=bob,O=x*", sha512))},
		{name: "describe-after-delete", req: describeScram()},
	}}
}

// tokensCase: the delegation-token APIs at every version over the
// harness's PLAINTEXT listener, where Kafka refuses them all
// (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED) with its refusal shapes: the
// owner and requester named, -1 timestamps, an empty HMAC, no details.
// The served paths are tested over SASL against a real broker
// (integration/interbroker).
func tokensCase() testCase {
	alice := "alice"
	var steps []step
	for v := int16(0); v <= 3; v++ {
		steps = append(steps, step{name: fmt.Sprintf("v%d-create", v), req: createToken(v, nil, "bob")})
		steps = append(steps, step{name: fmt.Sprintf("v%d-describe-all", v), req: describeTokens(v, nil)})
		steps = append(steps, step{name: fmt.Sprintf("v%d-describe-none", v), req: describeTokens(v, []string{})})
		steps = append(steps, step{name: fmt.Sprintf("v%d-describe-owner", v), req: describeTokens(v, []string{alice})})
		if v <= 2 {
			steps = append(steps, step{name: fmt.Sprintf("v%d-renew", v), req: renewToken(v, -1)})
			steps = append(steps, step{name: fmt.Sprintf("v%d-expire", v), req: expireToken(v, -1)})
		}
	}
	steps = append(steps, step{name: "v3-create-for-owner", req: createToken(3, &alice)})
	return testCase{name: "delegation-tokens", steps: steps}
}
