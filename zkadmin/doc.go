// Package zkadmin is kzadmin's access to ZooKeeper, and the only package
// that imports go-zookeeper. It has two layers:
//
//   - The typed ZooKeeper access (Kafka's KafkaZkClient and ZooKeeperClient
//     equivalent), described below: paths and bytes in, our own types out.
//   - On top of it, the AdminZkClient equivalent (validate, check limits,
//     then write configs, assignments, deletion markers, notifications,
//     reassignment and election requests), in its own files.
//
// # Client
//
// Connect opens a session and waits until it is established, bounded by
// its ctx. Every operation takes a ctx; go-zookeeper cannot abort a request
// once sent, so when the ctx ends first the call returns at once and the
// request finishes in the background (Close waits for it). Paths are always
// relative to Options.Chroot: go-zookeeper has no chroot, so the client
// prefixes every path it sends (single ops, multi ops) and strips every path
// it returns (sequential names, multi results, watch events). The chroot is
// created if missing, as Kafka does.
//
// Stat, ACL, CreateMode, Event and Op are this package's own types, so
// callers never see go-zookeeper's. Data nil is ZooKeeper's null and is
// kept distinct from empty on read and write.
//
// # Errors
//
// Every error is an *OpError (op and path) or a *MultiError (which op of a
// multi, and why) wrapping one of the sentinels: ErrNoNode, ErrNodeExists,
// ErrBadVersion, ErrNotEmpty, ErrSessionExpired, ErrConnectionLoss,
// ErrControllerMoved, ... Branch with errors.Is. ErrConnectionLoss means
// the outcome is unknown: re-read before retrying a write, and prefer
// versioned writes so that a retry cannot clobber. A write abandoned because
// its ctx ended also matches ErrConnectionLoss (and the ctx error).
//
// # Multi and fencing
//
// Multi applies ops atomically and reports the failing op. FencedMulti adds
// Kafka's controller fence (wrapRequestWithControllerEpochCheck): a check
// that /controller_epoch still has the zkVersion won at election, prepended
// to the ops; if it fails, nothing is applied and the error is
// ErrControllerMoved, upon which a controller must resign. Unlike Kafka,
// which sends one 2-op multi per znode, callers may put many ops under one
// check, at the price that one failing op (BADVERSION on one partition
// state) rolls back the whole multi; the caller then retries the others.
//
// MultiBatched splits a long op list into multis bounded by op count and
// request bytes (ZooKeeper drops a connection whose packet exceeds its
// jute.maxbuffer, about 1 MB) and issues them with bounded concurrency.
// Each multi is atomic; the list as a whole is not, and batches may land in
// any order. Use it for bulk writes of independent znodes.
//
// MultiAsync (and FencedMultiAsync) returns once its multi is on the wire,
// ahead of every multi the Client sends later; Pipeline keeps several of
// them unanswered. ZooKeeper applies a session's requests in the order it
// receives them, so a multi may depend on what an unanswered earlier one
// leaves. go-zookeeper has no asynchronous call, so the Client sends each
// multi under one token that it holds until go-zookeeper writes a multi
// frame to the connection, which it sees by wrapping the connection it
// dials (send_order.go).
//
// # Bulk reads
//
// GetMany and ChildrenMany (and their W variants, which leave watches) keep
// up to maxInFlight requests outstanding on the one connection: N
// goroutines each blocked in a request, which go-zookeeper pipelines.
// Results come back in input order with a per-path error. Kafka caps its
// pipeline at 10; deeper pays off here (see the figures below).
//
// # Watches and sessions
//
// GetW, ChildrenW and ExistsW return a channel that receives one Event and
// is then closed. Watches are re-read triggers: ZooKeeper sends no data with
// them and a watch may fire spuriously, so the reaction to any event is to
// re-read (and re-watch). Options.OnEvent receives every watch firing and
// every session state change, in order, from one goroutine; it is the feed
// for an event loop. go-zookeeper's own event channel drops events when
// full, so the client uses its callback and an unbounded queue instead.
//
// Session state: connected, disconnected (the session may survive a
// reconnect within the timeout; watches are re-armed by go-zookeeper),
// expired (ephemerals such as /controller are gone; every watch ends with
// EventNotWatching and ErrSessionExpired; go-zookeeper opens a new session
// by itself) and closed. Client.Session returns the current session, whose
// Done channel closes when it expires: a controller holds the Session it
// was elected in and resigns when Done closes.
//
// # Measured rates
//
// The benchmarks print the raw rates of the local ZooKeeper that the
// project's other benchmarks compare against:
//
//	go test -bench . -run '^$' ./zkadmin/
//
// On the 2-core development box, shared with other builds (load 6-13)
// and with a disk whose fsync takes ~2.5 ms, four runs gave: single creates
// 130-330/s (one fsync each, so disk-bound); one multi of 100 creates
// 3-16k znodes/s, of 500 3-19k; MultiBatched 11-21k znodes/s with its
// defaults (peak 30k); pipelined getData 2-3k/s with 1 in flight, 4-8k with
// 10, 4-11k with 50-200. GetMany costs nothing measurable over calling
// go-zookeeper directly. The design brief's figures from a quiet box were
// ~3k/s, ~30k/s and ~7-9k/s. Hence DefaultBatchOps 500,
// DefaultBatchInFlight 4 and DefaultMaxInFlight 50.
//
// # Admin operations
//
// Admin (admin*.go) is the AdminZkClient equivalent: CreateTopic and
// CreateTopics (a batch: one cluster read, every topic planned against the
// running counts, then fenced multis of whole topics, sent pipelined
// and chained so that none lands after one that failed: see createChain),
// AddPartitions, MarkTopicForDeletion, AlterConfigs (topics and brokers,
// with a version 2 change notification), StartReassignment and
// CancelReassignments (the legacy /admin/reassign_partitions request),
// ElectPreferredLeaders (/admin/preferred_replica_election) and
// ReadCluster. Every write goes through one loop: read the cluster
// (pipelined), plan (validate in Kafka's order with Kafka's messages, place
// with package placement, check the limits) and apply the plan as one
// multi. If the multi fails because a concurrent writer changed a znode it
// checks (BADVERSION, NODEEXISTS, NONODE), nothing was applied: the loop
// reads and plans again, and the fresh plan either succeeds or refuses with
// the right error (the topic now exists, the limit is now reached). A dry
// run returns the first plan's ops unapplied; they are exactly what would
// have been written. Refusals are *AdminError with an ErrorKind (errors.Is
// with ErrTopicExists, ErrPartitionLimit, ...) and Kafka's error code.
//
// Unlike Kafka's AdminZkClient, writes that belong together are one multi:
// a topic's config and assignment (Kafka writes the config, then the
// assignment, and can leave the first without the second), an entity
// config and its change notification, and rewrites expect the version
// they read (Kafka's add-partitions and config writes are last-writer-
// wins). Manual assignments naming unregistered brokers are refused
// (INVALID_REPLICA_ASSIGNMENT, as KRaft does), topic configs are checked
// against Kafka 3.9's definitions (TopicConfigDefs), and a znode that does
// not decode is never rewritten: ReadCluster reports it next to its topic
// (Topic.Err, Partition.Err, Topic.ConfigErr, BrokerErrors, ...) and reads
// everything else.
//
// # Partition limits: race-free by construction
//
// max.partitions and max.broker.partitions (the config file overlaid with
// /config/brokers/<default>) are checked on every path that adds replicas:
// CreateTopic, AddPartitions and StartReassignment. The counts include
// replicas being added by reassignments in progress and those a pending
// legacy reassignment request will add.
//
// Two creators that each read the counts and then write could jointly
// overshoot. They cannot here, because every such write follows one
// protocol around the data version V of /brokers/topics, a znode every
// broker creates and whose data Kafka never reads or writes (Kafka watches
// only its children):
//
//  1. read V (with the list of topics), then read the assignments and count;
//  2. refuse, before writing anything, if the change would exceed a limit;
//  3. write everything in one multi that starts with SetData(/brokers/topics,
//     null, expected version V) (creating /brokers/topics when it was
//     missing) and checks the version of /config/brokers/<default> read.
//
// The SetData bumps V, so of two writers that read the same V at most one
// multi commits; the other fails whole on its first op and plans again
// against counts that include the winner's replicas. Writes that commit are
// therefore totally ordered by V, and each was checked against counts that
// include every earlier one: together they never overshoot. The race test
// (admin_race_test.go) runs 20 creators in separate ZooKeeper sessions
// against a limit that fits only some; exactly those succeed and the rest
// get the limit error, and a step-by-step test shows a stale plan failing
// on the fence op (and overshooting without it).
//
// The guarantee covers writers that follow the protocol: kzadmin processes
// (CLI, daemon) using this package. It does not order writers that do not:
// Kafka's own controller and brokers (auto-creation, CreateTopics and
// CreatePartitions through a Kafka broker, AlterPartitionReassignments),
// older tools, or scripts writing znodes by hand. Their writes are counted
// when they have landed before our read, but one landing between our read
// and our multi is not detected. A change of the limits themselves is
// ordered only when /config/brokers/<default> existed at the read.
//
// Creates do not re-read every topic znode each round: an Admin caches the
// topic znodes it read, each with the data watch its read armed, and a
// round uses an entry only when that watch has not fired by the time the
// fence read has answered (an event barrier on the client makes that
// check exact, whoever the writer was) and the connection has not dropped
// since; see admin_topic_cache.go. Nor do they list /brokers/topics each
// round: the listing a round read or its multis left is kept, tagged with
// the children version of /brokers/topics, and a stat read stands in for
// the listing while that version is unchanged (every child created or
// deleted, by any writer, moves it); see topic_listing.go. Nor do they
// look at every cached topic: the topics the last read resolved are
// carried into the next, with their replica tally, while the client has
// delivered no watch firing (but children changes) and no session event
// since, which after the fence read's event barrier proves none of them
// changed; only the names that read did not have are looked up, and the
// tally moves by the topics added and removed (topic_read_memo.go). The
// rest of a create's read (the brokers, the deletion markers, the dynamic
// defaults, the config parents) is read with watches and answered from
// those still armed, through a WatchedReader taken after the fence read's
// reply (watched_reads.go): the same barrier argument makes such an answer
// as fresh as a read sent with the fence read, and a request is sent only
// for what changed. A create on a cluster of N topics thus costs the stat
// read and the reads of what changed, and work in the topics that changed,
// not N reads, the listing of N names, or a walk of N topics; other writes
// (AddPartitions, reassignments) still read what they need afresh.
//
// kzadmind (AdminOptions.PrereadCreates) also sends each round's read of
// the next round before it plans, and the next round, if it starts within
// 100 ms, plans on that read plus the topics the round created, fenced at
// the version the round left (admin_create_preread.go). The fence protocol
// above is unchanged; what it does not order (writers that do not follow
// it) is seen as of that earlier read, so the window above grows by at
// most those 100 ms. That read skips even the stat read when the round
// before it left an exact listing: its multi's fence, a SetData that
// ZooKeeper answers with the stat as of that op, saw the children version
// it expected (topic_listing.go). A pre-read then sends no request unless
// a watch fired or a topic it lists is not cached yet, and is as of the
// last reply the session received.
//
// No first attempt reads the new topics' config znodes: it creates them,
// assuming there is none (Kafka deletes it with the topic, and its tools
// write none for a missing topic). One left by a deletion cut short fails
// the multi, and the second attempt reads it and overwrites it at its
// version, as Kafka overwrites it. Dry runs read them, to show exact ops.
package zkadmin
