package deletion

// Event is an input to Manager.Step. Each names something the controller
// saw; the manager re-evaluates the topics it concerns against the Cluster
// (events are re-read triggers, so a duplicate does no harm).
type Event interface{ event() }

// Markers carries the children of /admin/delete_topics as just read (Kafka's
// TopicDeletion event). At failover, a fresh Manager gets this once the
// context is loaded (Kafka's TopicDeletionManager.init and
// tryTopicDeletion): deletions resume from what ZooKeeper holds. Send it
// again after a TopicChange that added topics while markers exist, so that
// a marker which raced ahead of its topic is picked up.
type Markers struct{ Topics []string }

// BrokersStarted: brokers registered (new or bounced). Topics with replicas
// on them are retried at once (Kafka's resumeDeletionForTopics on broker
// startup).
type BrokersStarted struct{ Brokers []int32 }

// ReplicasOffline: replicas went offline (broker failure, failed log
// directory). Those of queued topics fail (Kafka's failReplicaDeletion);
// they are retried when their broker starts again.
type ReplicasOffline struct{ Replicas []Replica }

// StopReplicaResponse is a broker's answer to a StopReplica with
// deletePartition=true, restricted to the partitions sent with delete=true
// whose topic has deletion started (reference §5.7; the controller's
// brokerchan.ParseStopReplicaResponse does exactly that filtering with
// Manager.Started). A top-level error puts every partition in Failed.
type StopReplicaResponse struct {
	Broker  int32
	Deleted []TopicPartition
	Failed  map[TopicPartition]error
}

// Retry: the timer of a RetryAfter effect fired. Attempt must be the
// effect's; a stale timer is ignored.
type Retry struct {
	Topic   string
	Attempt int
}

// Resume asks for the given topics (none: every queued topic) to be
// re-evaluated: a reassignment or election touching them finished, or the
// topic vanished from the context (TopicChange).
type Resume struct{ Topics []string }

// TopicsRemoved is the outcome of a RemoveTopics effect: topics whose
// znodes are gone, and those that failed (retried after a backoff).
type TopicsRemoved struct {
	Removed []string
	Failed  map[string]error
}

func (Markers) event()             {}
func (BrokersStarted) event()      {}
func (ReplicasOffline) event()     {}
func (StopReplicaResponse) event() {}
func (Retry) event()               {}
func (Resume) event()              {}
func (TopicsRemoved) event()       {}
