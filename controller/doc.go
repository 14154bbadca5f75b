// Package controller is kzadmin's ZooKeeper-mode Kafka controller: Kafka's
// KafkaController, rebuilt around one event loop.
//
// # Election and fencing
//
// Run competes for /controller. Winning is one ZooKeeper multi that creates
// the ephemeral /controller (v2 JSON) and bumps /controller_epoch
// conditionally on its version; the version the bump returns fences every
// later write, each a multi that first checks /controller_epoch still has
// it (zkadmin.FencedMulti). A fenced write that fails the check
// (zkadmin.ErrControllerMoved), a ZooKeeper session expiry, or /controller
// naming another node makes the controller resign at once: the
// leadership's context is cancelled, its broker channels closed, its
// goroutines waited for, and requests still queued are answered
// NOT_CONTROLLER. A watch on /controller starts a new election when it is
// deleted. Run refuses to start when a broker is registered with node.id.
//
// # The event loop
//
// One goroutine owns all controller state (the cluster context, the
// partition and replica state machines, the watch bookkeeping). Watch
// firings, session changes, broker responses, timers and requests
// (AlterPartition, ControlledShutdown, ElectLeaders) are events in one
// FIFO; the loop takes them one at a time. Watches are re-read triggers:
// a handler re-reads what changed (which re-arms the watch) and diffs it
// against the context. Decisions come from controller/election (pure
// functions); the loop writes ZooKeeper (fenced, batched into multis,
// conditional on each state znode's version and retried on BADVERSION
// after a fresh read), then tells the brokers through controller/brokerchan
// (LeaderAndIsr, UpdateMetadata, StopReplica in Kafka's batch order).
//
// What it handles: failover load (brokers with their czxid epochs, topics
// and ids, every partition state, pipelined), broker startup, failure and
// bounce, endpoint changes, new topics and added partitions (the
// controller creates the partition state znodes), ISR changes from
// leaders (AlterPartition), controlled shutdown, preferred and unclean
// elections (ElectLeaders and /admin/preferred_replica_election), the
// auto leader rebalance, and replicas on failed log directories.
//
// Deliberate differences from Kafka: elections and ISR removals start from
// the cached leadership instead of re-reading every state znode (at IBP
// 2.7-IV2 and later only the controller writes them; every write is
// conditional on the cached version, and a BADVERSION is re-read and
// retried), which halves the ZooKeeper work of a broker failure; a fenced
// write failing its check resigns at once, and /controller is released
// if it still names this node; one undecodable broker or state znode is
// logged and skipped rather than stopping the whole event.
//
// The controller lists itself among the live brokers of every
// UpdateMetadata (Config.Endpoints), so that brokers can reach it, and
// never hosts replicas: a replica assigned to its id (broker
// auto-creation places replicas over every node it knows) is re-placed
// before the partition goes online.
//
// Producer ids: brokers on IBP 3.0 and later ask the controller for blocks
// of 1000 (AllocateProducerIds, producer_ids.go), claimed in
// /latest_producer_id_block with a write conditional on its version and
// fenced by the controller epoch. Because it is listed as a broker,
// idempotent producers also send it InitProducerId; it answers from a
// block it claims for its own id the same way (init_producer_id.go).
//
// Topic deletion is decided by the deletion package's Manager, one per
// leadership, which this package drives (deletion.go) and whose effects it
// carries out (deletion_effects.go): markers under /admin/delete_topics
// queue topics, StopReplica(delete=true) goes to every replica, and once
// all answered the topic's znodes are removed, fenced. The context's
// deleting set mirrors the Manager's queue, which hides queued topics from
// Metadata and sends leader -2 for them.
//
// Partition reassignment is Kafka's (reference §2.6), phases U, A1-A2 and
// B1-B8, batched across partitions (reassign_flow.go). It starts from the
// creation of /admin/reassign_partitions, from AlterPartitionReassignments
// (through the loop, without the znode; the partition limits apply), at
// failover (the topic znodes' adding/removing replicas and the znode), at
// broker startup (targets naming the broker), and completes when an
// AlterPartition brings the whole target into the ISR.
//
// With Config.WarmStandby a node that is not the controller keeps the
// cluster loaded and current by watching it, and takes over without the
// failover reads (standby.go).
//
// Brokers with an IBP below 2.7-IV2 write ISR changes into the state
// znodes themselves and post /isr_change_notification; the controller
// re-reads the named partitions and tells every broker (isr_notify.go). A
// broker whose log directory failed posts /log_dir_event_notification; the
// controller sends it LeaderAndIsr for all its replicas and takes those it
// reports on the failed directory offline (logdir_notify.go).
//
// Config changes: the controller watches /config/changes itself (Kafka's
// controller is a broker and hears them through its config handler). A
// topic or cluster default enabling unclean election or unclean recovery
// retries the offline partitions at once, and a min.insync.replicas change
// clears the voided ELRs; the cluster-wide dynamic defaults feed every
// election (config_watch.go). ElectLeaders v3's desired leaders run
// designated elections, the operator's manual recovery (designated.go).
//
// The seat (seat*.go): Kafka's brokers compete for /controller too. A
// standby keeps /controller_epoch's value and version current, so that when
// /controller is deleted it sends the create-and-bump multi in one round
// trip. When a registered broker (an id under /brokers/ids that no kzadmind
// published under PeerDirPath) holds the seat, one multi deletes its
// /controller, creates ours and bumps the epoch, conditional on the
// versions read, so the seat is never vacant for a broker to race into;
// repeated losses back off (1 s doubling to 30 s). Config key
// kzadmin.controller.reclaim.from.brokers turns this off.
//
// KIP-966 (elr.go, recovery.go): with eligible.leader.replicas.enable every
// ISR write goes through election.NextELR, offline elections try the ISR,
// then the ELR, then unclean recovery by unclean.recovery.strategy, whose
// probes (replicalog) run off the loop and come back as events.
//
// DESIGN.md describes goroutine ownership.
package controller
