// Package wirebackend is kzadmin's Kafka-protocol backend
// (--bootstrap-server): it implements backend.Backend with the admin wire
// APIs, through franz-go's kgo client (kadm where it fits), so the CLI
// behaves the same whether it writes znodes or asks a controller.
//
// # Where requests go
//
// CreateTopics, DeleteTopics, CreatePartitions, ElectLeaders and the
// reassignment APIs go to the controller, found as every client finds it:
// the ControllerId of a Metadata response, looked up in that response's
// brokers (kgo does this). The configs APIs, DescribeCluster and
// DescribeTopicPartitions are sent to the controller too (librdkafka and
// KafkaJS route configs there as well): in a kzadmin cluster it is the one
// node that serves DescribeTopicPartitions, and brokers of other kinds may
// serve little more than Metadata (the simulated ones of kzadmind --dev
// serve Metadata, the configs APIs and DescribeCluster).
// Configs of one broker (--entity-name <id>) go to that broker, which is
// the only node that may answer for it.
//
// # Describing: split and page
//
// Topics are described with DescribeTopicPartitions (key 75), the form
// KIP-966 gave seed 003's DescribeTopic. A long topic list is split into
// requests of Options.TopicsPerRequest names, and each request is paged:
// the response partition limit (Options.PartitionsPerPage) cuts an answer
// short with a cursor, and the next request continues from it, merging a
// topic cut in two. Topics a server answers with the seed's
// REQUEST_LIMIT_REACHED (which has no code of its own; see
// limitReached) are asked for again in the next piece. When the controller
// does not serve key 75 (a Kafka controller), Metadata is used instead,
// split the same way.
//
// # Retries
//
// Every operation runs in a retry loop: errors worth retrying
// (NOT_CONTROLLER while a controller is being elected, a controller not
// yet known, a broken connection, THROTTLING_QUOTA_EXCEEDED) are retried
// with a capped exponential backoff until the command's time limit;
// anything else is final, including two codes kerr calls retriable: the
// controller's UNKNOWN_TOPIC_OR_PARTITION is not metadata still
// propagating, and REQUEST_TIMED_OUT says the change was made but not
// completed in time, so repeating it would only report that the topic
// exists. kgo's own per-request retries
// are turned off so that this one loop decides, and can report each retry
// (Options.OnRetry).
//
// # What has no wire equivalent
//
// The protocol has no validateOnly for DeleteTopics, ElectLeaders and the
// reassignment APIs, no rack-awareness switch, and no "marked for
// deletion" flag: --dry-run on those commands and --disable-rack-aware are
// refused with a *UsageError (the CLI exits 2), and topics being deleted
// simply no longer show. A dry run of the others is the API's
// validateOnly: the cluster validates everything, limits included, and
// writes nothing; Writes then lists no znode writes.
package wirebackend
