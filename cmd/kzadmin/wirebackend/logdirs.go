package wirebackend

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

var _ backend.LogDirAdmin = (*Backend)(nil)

// A replica's log directory is its broker's business: both requests go
// to the broker of each replica, as Kafka's AdminClient sends them, one
// request per broker.

// byBroker groups the indexes of replicas by broker, brokers in order.
func byBroker(replicas []backend.ReplicaLogDir) (map[int32][]int, []int32) {
	out := map[int32][]int{}
	for i, r := range replicas {
		out[r.Broker] = append(out[r.Broker], i)
	}
	return out, slices.Sorted(maps.Keys(out))
}

// brokerRequest sends req to one broker, retrying what is retriable.
func (b *Backend) brokerRequest(ctx context.Context, broker int32, req kmsg.Request) (kmsg.Response, error) {
	var resp kmsg.Response
	err := b.retry(ctx, func(ctx context.Context) error {
		var err error
		resp, err = b.cl.Broker(int(broker)).Request(ctx, req)
		return b.note(err)
	})
	if err != nil {
		return nil, fmt.Errorf("broker %d: %w", broker, err)
	}
	return resp, nil
}

// AlterReplicaLogDirs implements backend.LogDirAdmin.
func (b *Backend) AlterReplicaLogDirs(ctx context.Context, moves []backend.ReplicaLogDir) []error {
	out := make([]error, len(moves))
	groups, brokers := byBroker(moves)
	for _, broker := range brokers {
		idx := groups[broker]
		req := kmsg.NewPtrAlterReplicaLogDirsRequest()
		dirs := map[string]map[string][]int32{}
		for _, i := range idx {
			m := moves[i]
			if dirs[m.Dir] == nil {
				dirs[m.Dir] = map[string][]int32{}
			}
			dirs[m.Dir][m.Topic] = append(dirs[m.Dir][m.Topic], m.Partition)
		}
		for _, dir := range slices.Sorted(maps.Keys(dirs)) {
			d := kmsg.NewAlterReplicaLogDirsRequestDir()
			d.Dir = dir
			for _, topic := range slices.Sorted(maps.Keys(dirs[dir])) {
				t := kmsg.NewAlterReplicaLogDirsRequestDirTopic()
				t.Topic, t.Partitions = topic, dirs[dir][topic]
				d.Topics = append(d.Topics, t)
			}
			req.Dirs = append(req.Dirs, d)
		}
		resp, err := responseAs[*kmsg.AlterReplicaLogDirsResponse](b.brokerRequest(ctx, broker, req))
		if err != nil {
			for _, i := range idx {
				out[i] = err
			}
			continue
		}
		codes := map[backend.TopicPartition]int16{}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				codes[backend.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.ErrorCode
			}
		}
		for _, i := range idx {
			code, ok := codes[backend.TopicPartition{Topic: moves[i].Topic, Partition: moves[i].Partition}]
			switch err := kerr.ErrorForCode(code); {
			case !ok:
				out[i] = fmt.Errorf("broker %d did not answer for %s", broker, moves[i].Replica())
			case errors.Is(err, kerr.ReplicaNotAvailable):
				out[i] = fmt.Errorf("%w: %w", backend.ErrReplicaNotAvailable, err)
			default:
				out[i] = err
			}
		}
	}
	return out
}

// DescribeReplicaLogDirs implements backend.LogDirAdmin, asking each
// broker for its replicas only. A directory the broker reports offline
// (KAFKA_STORAGE_ERROR) lists no replicas, as in Kafka's AdminClient; any
// other directory error fails the call.
func (b *Backend) DescribeReplicaLogDirs(ctx context.Context, replicas []backend.ReplicaLogDir) ([]backend.ReplicaDirs, error) {
	out := make([]backend.ReplicaDirs, len(replicas))
	groups, brokers := byBroker(replicas)
	for _, broker := range brokers {
		idx := groups[broker]
		topics := map[string][]int32{}
		for _, i := range idx {
			topics[replicas[i].Topic] = append(topics[replicas[i].Topic], replicas[i].Partition)
		}
		dirs, err := b.brokerLogDirs(ctx, broker, topics)
		if err != nil {
			return nil, err
		}
		where := map[backend.TopicPartition]backend.ReplicaDirs{}
		for _, d := range dirs {
			switch err := kerr.ErrorForCode(d.ErrorCode); {
			case errors.Is(err, kerr.KafkaStorageError):
				continue // an offline directory
			case err != nil:
				return nil, fmt.Errorf("describe log dirs: broker %d, directory %s: %w", broker, d.Dir, err)
			}
			for _, r := range d.Replicas {
				tp := backend.TopicPartition{Topic: r.Topic, Partition: r.Partition}
				w := where[tp]
				if r.IsFuture {
					w.Future = d.Dir
				} else {
					w.Current = d.Dir
				}
				where[tp] = w
			}
		}
		for _, i := range idx {
			out[i] = where[backend.TopicPartition{Topic: replicas[i].Topic, Partition: replicas[i].Partition}]
		}
	}
	return out, nil
}

// DescribeLogDirs implements backend.LogDirAdmin: every directory of each
// broker with all its replicas (a null topic list), as Kafka's
// kafka-log-dirs asks.
func (b *Backend) DescribeLogDirs(ctx context.Context, brokers []int32) ([]backend.BrokerLogDirs, error) {
	out := make([]backend.BrokerLogDirs, len(brokers))
	for i, broker := range brokers {
		dirs, err := b.brokerLogDirs(ctx, broker, nil)
		if err != nil {
			return nil, err
		}
		out[i] = backend.BrokerLogDirs{Broker: broker, Dirs: dirs}
	}
	return out, nil
}

// brokerLogDirs asks one broker for its log directories and the replicas
// in them: of topics' partitions, or all when topics is nil.
func (b *Backend) brokerLogDirs(ctx context.Context, broker int32, topics map[string][]int32) ([]backend.LogDir, error) {
	req := kmsg.NewPtrDescribeLogDirsRequest()
	if topics != nil {
		req.Topics = []kmsg.DescribeLogDirsRequestTopic{}
		for _, topic := range slices.Sorted(maps.Keys(topics)) {
			t := kmsg.NewDescribeLogDirsRequestTopic()
			t.Topic, t.Partitions = topic, topics[topic]
			req.Topics = append(req.Topics, t)
		}
	}
	resp, err := responseAs[*kmsg.DescribeLogDirsResponse](b.brokerRequest(ctx, broker, req))
	if err != nil {
		return nil, fmt.Errorf("describe log dirs: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, fmt.Errorf("describe log dirs: broker %d: %w", broker, err)
	}
	var dirs []backend.LogDir
	for _, d := range resp.Dirs {
		dir := backend.LogDir{Dir: d.Dir, ErrorCode: d.ErrorCode}
		for _, t := range d.Topics {
			for _, p := range t.Partitions {
				dir.Replicas = append(dir.Replicas, backend.LogDirReplica{Topic: t.Topic, Partition: p.Partition,
					Size: p.Size, OffsetLag: p.OffsetLag, IsFuture: p.IsFuture})
			}
		}
		dirs = append(dirs, dir)
	}
	return dirs, nil
}
