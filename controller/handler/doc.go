// Package handler serves the admin wire APIs of the elected controller:
// Metadata, CreateTopics, DeleteTopics, CreatePartitions, DescribeCluster,
// the three config APIs, ElectLeaders (v3 with the seed's DesiredLeaders),
// Alter/ListPartitionReassignments and DescribeTopicPartitions; and, because
// every broker's Metadata lists this node and clients send some requests
// to any broker listed, FindCoordinator (from the internal topics'
// leaders) and empty answers to ListGroups, ListTransactions and
// DescribeLogDirs (16_35_66_empty_answers.go), the ACL APIs (through
// Options.ACLs), and the client quota, SCRAM credential and
// delegation-token APIs (each served only when the Admin implements its
// seam: QuotaAdmin, ScramAdmin, TokenAdmin). Register
// them on the controller listener's wire.Mux with Handlers.Register; the
// versions are wire.DefaultZKBrokerVersions'. One file per API key (03_metadata.go,
// 19_create_topics.go, ...) holds the handler with a comment on its
// behaviour and version notes; reference/apis.md is the specification.
//
// # Seams
//
// The handlers talk to the rest of kzadmin through small interfaces
// defined here, so that they can be tested against fakes:
//
//   - Cluster gives the current View and lets a request wait until a later
//     view satisfies a condition (leaders elected, topic gone). A View is
//     the controller's own immutable snapshot (controller.MetadataView:
//     brokers, topics with ids, partition leadership), embedded rather
//     than converted, plus the cluster id. Views is a ready-made Cluster
//     that tests and fakes publish into.
//   - Admin does the writes (zkadmin.Admin satisfies it as is): create a
//     topic, add partitions, mark a topic for deletion, alter and read
//     entity configs, start and cancel partition reassignments. Its typed errors (*zkadmin.AdminError) carry the
//     Kafka error code; the partition-limit error becomes POLICY_VIOLATION
//     with a message starting "WILL_EXCEED_PARTITION_LIMITS:", or code 88
//     with partition.limits.error.code=88.
//   - QuotaAdmin, ScramAdmin and TokenAdmin keep client quotas, SCRAM
//     credentials and delegation tokens (zkadmin.Admin satisfies them).
//   - Elector runs leader elections (the controller's ElectLeaders).
//   - Authorizer is asked at every check point Kafka has; the default
//     allows everything, as Kafka does without an authorizer.
//
// # Answers come from the controller
//
// Every handler reads one View at its start, so one response never mixes
// two states of the cluster. Admin requests (CreateTopics, DeleteTopics,
// CreatePartitions, ElectLeaders, the reassignment APIs) are answered with
// NOT_CONTROLLER, shaped per API as Kafka shapes it, when the view says
// this node is not the active controller. Metadata, DescribeCluster, the
// config APIs and the "any broker" APIs above are answered by every node.
//
// Requests that wait (CreateTopics, DeleteTopics and CreatePartitions with
// a positive timeout, ElectLeaders) wait on the View: the answer is what
// the controller itself shows, so a Metadata request right after a
// success sees the result (seed 000's "local blocking" on the controller).
// A wait also ends early when this node stops being the active
// controller; what is incomplete then answers REQUEST_TIMED_OUT.
//
// Writes are not transactional across a batch: each topic (or resource) of
// a request is validated and written on its own, and gets its own error,
// in request order.
package handler
