// Package placement decides which brokers hold a topic's partition replicas. It is pure: no
// I/O, no goroutines, no package-level state. Randomness comes in through the small Rand
// interface, so every result can be reproduced.
//
// # Replica lists and leaders
//
// A placement is a [][]int32: element i is the replica list of one partition (partition i
// for a new topic, len(existing)+i for added partitions). The first replica of each list is
// the partition's preferred leader. Kafka's replica assignment protocol has always assumed
// this (KIP-4: "the replica assignment protocol takes [replicas], there is the implicit
// assumption that the first replica is the leader"); this package relies on it when it
// balances leaders and counts leader changes.
//
// # The two placers
//
// AdminUtils (the default, Options.Placer zero value) is ZK-mode Kafka's
// AdminUtils.assignReplicasToBrokers, which AdminZkClient.createTopic, addPartitions,
// ZkAdminManager.createTopics and kafka-reassign-partitions --generate use:
//
//   - brokers are sorted by id (Kafka's ZK paths do this; ZkAdminManager passing them
//     unsorted is a known imbalance bug, KAFKA-17198, not reproduced);
//   - rack-unaware when no broker has a rack: partition p is led by broker (p+start) mod n and
//     its followers walk the list with a shift that grows at every multiple of n;
//   - rack-aware when every broker has one: the same walk over the rack-alternated list
//     (RackAlternatedBrokerList), skipping brokers on racks the partition already uses until
//     every rack has a replica;
//   - some brokers with a rack and some without is an error (use ApplyRackMode first, as
//     Kafka's RackAwareMode does);
//   - validation order and messages are Kafka's (*Error with an ErrorKind);
//   - Options.Start pins the start index and the shift, and then the output is exactly
//     Kafka's; otherwise both are drawn from Rand (start first, then shift), as Kafka does.
//
// AdminUtils ignores Broker.Fenced: ZK-mode Kafka places on the live brokers it is given.
//
// Striped is KRaft's StripedReplicaPlacer: racks are taken in turn from a rotating offset, and
// within each rack brokers in turn from a rotating offset; leaders are always unfenced, and
// fenced brokers are used only when a rack has no unfenced broker left for the partition.
// Errors are Kafka's, in the placer's check order. Random draws follow Kafka's order exactly
// (per rack in java.util.HashMap iteration order, then the rack offset, then reshuffles with
// Collections.shuffle's draws), so with NewMockRandom the output equals Kafka's test vectors.
// With partitions <= 0 it returns no partitions and no error, as Kafka's placer does.
//
// # Which placer kzadmin uses
//
// The zkadmin CLI path (create topic, add partitions) and the wire CreateTopics and
// CreatePartitions handlers use AdminUtils, because that is what ZK-mode Kafka does and what
// operators of a ZK cluster expect; added partitions use continuation (below). Reassignment
// proposals use PlanReassignment. The striped placer is available for the controller and for
// a later configuration switch; callers keep one Rand for all its calls, as Kafka keeps one
// Random per placer.
//
// # Continuation for added partitions
//
// AddPartitions continues the topic's existing layout instead of restarting it (KAFKA-14437,
// seed 004; proposed upstream for the striped placer and never merged):
//
//   - Striped: the rack offset starts at the rack after the last partition's leader's rack;
//     each rack's unfenced brokers continue after the broker that most recently started that
//     rack (scanning partitions from the last, replicas from the first). A rack whose deciding
//     broker is now fenced, and anything involving unknown brokers, keeps a random offset.
//     Unlike the PR, a continued rack hands out the broker after the last one used whenever
//     it is first touched, not only in the call's first partition.
//   - AdminUtils: the same idea for its two numbers. The start makes partition m (m =
//     len(existing)) led by the broker after the last partition's leader in the walk list; the
//     shift is the one whose walk reproduces the last partitions' followers.
//
// For a layout the placer made itself over the same brokers, adding partitions in any number
// of steps gives exactly the layout of one creation: always for the striped placer while its
// first cycle lasts (it reshuffles after as many partitions as it has unfenced brokers) and
// once every rack holds a replica; for AdminUtils whenever the existing partitions determine
// the shift, and otherwise the layout of one creation with another shift. So added partitions
// do not repeat existing replica lists while the placer still has unused ones.
//
// Kafka's own rule is available as Options.KafkaAddRule. For AdminUtils it is AdminZkClient's
// start index: the position in the id-sorted list of partition 0's leader, used as both start
// and shift, with the shift not adjusted for the partitions already there; it restarts the walk
// and can repeat existing lists. For Striped it ignores the existing partitions, as Kafka 3.9
// does.
//
// # Partition limits (KIP-578)
//
// Options.Limits carries max.broker.partitions, max.partitions and the current counts. A limit
// of 0 or below means unlimited (Kafka's proposal defaults them to Int.MaxValue). Placement
// first checks max.partitions, then whether any placement fits at all: with h(b) the replicas
// broker b may still take and P partitions of rf replicas,
//
//	sum over brokers of min(h(b), P) >= P*rf   and   sum over unfenced brokers of min(h(b), P) >= P.
//
// If it fits, the placers run as usual but pass over brokers at their limit, and over brokers
// that would leave the remaining partitions without a valid placement, so they never refuse a
// request that has a valid placement and never exceed a limit. Rack spread stays their first
// preference among the brokers they may use; a partition loses it only when the racks it
// lacks have no such broker. Limits that cannot bind change nothing: the output is the
// unlimited one. Failures are *LimitError, whose message starts with LimitErrorPrefix so
// the wire layer can map it to WILL_EXCEED_PARTITION_LIMITS. Limits.CheckNewPartitions and
// Limits.CheckReassignment apply the same limits to explicit assignments and reassignment
// targets (a broker is charged for replicas it gains, and credited nothing for replicas it
// gives up until the reassignment completes).
//
// # Reassignment plans
//
// PlanReassignment proposes new replica lists for topics on a set of target brokers: it keeps
// replicas in place where it can, moves replicas off brokers outside the targets, restores
// rack spread, balances replicas to within one per broker where racks and limits allow,
// moving as few replicas as it can, and reorders replicas (no data moves) to balance
// preferred leaders. It reports the moves, the leader changes and the balance before and after.
//
// # Java compatibility helpers
//
// NewMockRandom and NewJavaRandom reproduce Kafka's test RNG and java.util.Random's nextInt,
// so Kafka's asserted vectors can be replayed. Rack order uses String.compareTo (UTF-16) and
// java.util.HashMap iteration order where Kafka depends on them.
package placement
