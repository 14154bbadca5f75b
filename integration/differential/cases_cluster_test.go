package differential

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
		createTopicsConfigsCase(),
		createPartitionsMoreCase(),
		deleteTopicsMoreCase(),
		metadataMoreCase(),
		describeConfigsMoreCase(),
		incrementalAlterMoreCase(),
		electLeadersMoreCase(),
		reassignmentsMoreCase(),
		aclsCase(),
	}
}
