// Package brokerchan is the controller's side of the controller-to-broker
// traffic of a ZooKeeper-mode Kafka cluster: LeaderAndIsr, UpdateMetadata
// and StopReplica (controller reference §5, with the broker-side rules of
// §6 in mind).
//
// It has three parts.
//
// Building (pure). A Batch is Kafka's ControllerBrokerRequestBatch. The
// event loop adds what one decision needs (AddLeaderAndIsr,
// AddUpdateMetadata, AddStopReplica), reading partition state from a View
// of the controller context, and Emit turns it into one kmsg request per
// broker (two StopReplicas before v3), in Kafka's order: all LeaderAndIsr,
// then all UpdateMetadata, then all StopReplica. Versions come from the
// controller's inter.broker.protocol.version (config.IBP, RequestVersionsAt), never from
// ApiVersions, exactly as Kafka's controller does; fields a version does
// not carry are left at their defaults, so each request equals what the
// broker decodes. Every request carries the target broker's epoch (the
// czxid of its registration), the controller id and epoch, and
// IsKRaftController=false. A failover sends every partition to every
// broker, so the batch is built for size (batch_pending.go): adds in
// partition order append to per-broker lists without a map or a sort, the
// state of one add is copied once for all its brokers, small lists are
// copied into shared chunks, and each request's partition states are one
// allocation.
//
// Sending (goroutines). A Manager holds one channel per broker: an ordered
// queue and one sender goroutine that keeps at most one request in flight
// and resends it, reconnecting with a fixed backoff, until a response
// arrives or the broker is removed (Kafka's RequestSendThread). The
// connection is kzadmin's shared client connection (internal/kafkaconn):
// request header v1 or v2, the controller id as client id, responses
// matched by correlation id and decoded with kmsg, with no ApiVersions
// exchange. Each channel is owned by the Manager; RemoveBroker and
// Close stop it and wait for its goroutine, and fail what it had not
// delivered with ErrBrokerRemoved or ErrClosed.
//
// Reading responses (pure). ParseLeaderAndIsrResponse sorts per-partition
// outcomes into online and offline (KAFKA_STORAGE_ERROR) replicas, and
// UpdateOfflineReplicas applies them to the context's offline-directory
// set (AllNone lets the controller skip both for the usual answer, no
// error anywhere); ParseStopReplicaResponse extracts what topic deletion counts;
// UpdateMetadataError reports the only thing an UpdateMetadata response
// carries.
//
// Not here: TLS and SASL on the channel (DialFunc is the seam for TLS), and
// deciding what to send, which is the event loop's job.
package brokerchan
