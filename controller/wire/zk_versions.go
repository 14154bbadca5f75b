package wire

// KafkaZKBrokerVersions returns what a Kafka 3.9 broker in ZooKeeper mode
// advertises in ApiVersions (the JSON validVersions of every API whose
// listeners include "zkBroker", on the 3.9 branch), sorted by key. Every
// minimum is 0 in 3.x.
func KafkaZKBrokerVersions() []VersionRange {
	maxes := []struct{ key, max int16 }{
		{0, 11}, // Produce
		{1, 17}, // Fetch
		{2, 9},  // ListOffsets
		{3, 12}, // Metadata
		{4, 7},  // LeaderAndIsr
		{5, 4},  // StopReplica
		{6, 8},  // UpdateMetadata
		{7, 3},  // ControlledShutdown
		{8, 9},  // OffsetCommit
		{9, 9},  // OffsetFetch
		{10, 6}, // FindCoordinator
		{11, 9}, // JoinGroup
		{12, 4}, // Heartbeat
		{13, 5}, // LeaveGroup
		{14, 5}, // SyncGroup
		{15, 5}, // DescribeGroups
		{16, 5}, // ListGroups
		{17, 1}, // SaslHandshake
		{18, 4}, // ApiVersions
		{19, 7}, // CreateTopics
		{20, 6}, // DeleteTopics
		{21, 2}, // DeleteRecords
		{22, 5}, // InitProducerId
		{23, 4}, // OffsetForLeaderEpoch
		{24, 5}, // AddPartitionsToTxn
		{25, 4}, // AddOffsetsToTxn
		{26, 4}, // EndTxn
		{27, 1}, // WriteTxnMarkers
		{28, 4}, // TxnOffsetCommit
		{29, 3}, // DescribeAcls
		{30, 3}, // CreateAcls
		{31, 3}, // DeleteAcls
		{32, 4}, // DescribeConfigs
		{33, 2}, // AlterConfigs
		{34, 2}, // AlterReplicaLogDirs
		{35, 4}, // DescribeLogDirs
		{36, 2}, // SaslAuthenticate
		{37, 3}, // CreatePartitions
		{38, 3}, // CreateDelegationToken
		{39, 2}, // RenewDelegationToken
		{40, 2}, // ExpireDelegationToken
		{41, 3}, // DescribeDelegationToken
		{42, 2}, // DeleteGroups
		{43, 2}, // ElectLeaders
		{44, 1}, // IncrementalAlterConfigs
		{45, 0}, // AlterPartitionReassignments
		{46, 0}, // ListPartitionReassignments
		{47, 0}, // OffsetDelete
		{48, 1}, // DescribeClientQuotas
		{49, 1}, // AlterClientQuotas
		{50, 0}, // DescribeUserScramCredentials
		{51, 0}, // AlterUserScramCredentials
		{56, 3}, // AlterPartition
		{57, 1}, // UpdateFeatures
		{58, 0}, // Envelope
		{60, 1}, // DescribeCluster
		{61, 0}, // DescribeProducers
		{65, 0}, // DescribeTransactions
		{66, 1}, // ListTransactions
		{67, 0}, // AllocateProducerIds
		{68, 0}, // ConsumerGroupHeartbeat
		{69, 0}, // ConsumerGroupDescribe
	}
	out := make([]VersionRange, len(maxes))
	for i, m := range maxes {
		out[i] = VersionRange{Key: m.key, Max: m.max}
	}
	return out
}

// DefaultZKBrokerVersions is the table kzadmind works from: what a Kafka
// 3.9 ZK broker advertises (KafkaZKBrokerVersions), plus the design's two
// additions, ElectLeaders up to v3 (the seed's DesiredLeaders; kmsg stops at
// v2, so v3 needs a Decoder) and DescribeTopicPartitions (75) v0, which
// real ZK brokers never advertise. Handlers look their range up here with
// ZKBrokerRange and register it; ApiVersions advertises only what is
// registered.
func DefaultZKBrokerVersions() []VersionRange {
	out := KafkaZKBrokerVersions()
	for i := range out {
		if out[i].Key == 43 {
			out[i].Max = 3
		}
	}
	return append(out, VersionRange{Key: 75, Min: 0, Max: 0})
}

// ZKBrokerRange returns key's range from DefaultZKBrokerVersions.
func ZKBrokerRange(key int16) (VersionRange, bool) {
	for _, vr := range DefaultZKBrokerVersions() {
		if vr.Key == key {
			return vr, true
		}
	}
	return VersionRange{}, false
}
