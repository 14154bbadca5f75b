package wirebackend

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/znodes"
)

// ListTopics lists every topic the controller shows, sorted by name.
// Topics being deleted do not show: the protocol has no flag for them.
func (b *Backend) ListTopics(ctx context.Context) ([]backend.TopicListing, error) {
	var d *described
	var moving map[backend.TopicPartition]move
	err := b.retry(ctx, func(ctx context.Context) error {
		var err error
		if moving, err = b.reassigning(ctx); err != nil { // first, as in describe
			return err
		}
		d, err = b.describeTopics(ctx, nil, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]backend.TopicListing, 0, len(d.topics))
	for _, t := range d.sorted() {
		l := backend.TopicListing{Name: t.Name, Internal: t.Internal, Partitions: len(t.Partitions), Err: t.Err}
		if p, ok := partition(t, 0); ok {
			l.ReplicationFactor = len(p.Replicas)
			if m := moving[backend.TopicPartition{Topic: t.Name}]; m.stillIn(p.Replicas) {
				l.ReplicationFactor -= len(m.removing)
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// Describe reads the brokers, the named (or all) topics with their
// partitions and reassignments in progress, and, if asked, their config
// overrides and the cluster-wide broker defaults.
func (b *Backend) Describe(ctx context.Context, req backend.DescribeRequest) (*backend.ClusterView, error) {
	var v *backend.ClusterView
	err := b.retry(ctx, func(ctx context.Context) error {
		var err error
		v, err = b.describe(ctx, req)
		return err
	})
	return v, err
}

func (b *Backend) describe(ctx context.Context, req backend.DescribeRequest) (*backend.ClusterView, error) {
	// The reassignments are read before the topics: a move that ends in
	// between then shows as still moving, or as done, never as the full
	// replica list of a move without its adding and removing replicas,
	// which a waiting reassign would take for a foreign re-target.
	moving, err := b.reassigning(ctx)
	if err != nil {
		return nil, err
	}
	d, err := b.describeTopics(ctx, req.Topics, req.All)
	if err != nil {
		return nil, err
	}
	v, err := b.cluster(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range d.sorted() {
		sort.Slice(t.Partitions, func(i, j int) bool { return t.Partitions[i].ID < t.Partitions[j].ID })
		for i := range t.Partitions {
			m := moving[backend.TopicPartition{Topic: t.Name, Partition: t.Partitions[i].ID}]
			if m.stillIn(t.Partitions[i].Replicas) {
				t.Partitions[i].Adding, t.Partitions[i].Removing = m.adding, m.removing
			}
		}
		v.Topics = append(v.Topics, *t)
	}
	if !req.Configs || len(v.Topics) == 0 {
		return v, nil
	}
	names := make([]string, 0, len(v.Topics))
	for _, t := range v.Topics {
		if t.Err == nil {
			names = append(names, t.Name)
		}
	}
	configs, err := b.topicOverrides(ctx, names)
	if err != nil {
		return nil, err
	}
	for i := range v.Topics {
		if c, ok := configs[v.Topics[i].Name]; ok {
			v.Topics[i].Configs, v.Topics[i].ConfigErr = c.overrides, c.err
		}
	}
	if v.BrokerDefaults, err = b.brokerOverrides(ctx, backend.DefaultEntity); err != nil {
		v.Warnings = append(v.Warnings, "cluster-wide broker configs: "+err.Error())
	}
	return v, nil
}

// describeTopics describes the named topics (or all) with
// DescribeTopicPartitions, or with Metadata when the controller does not
// serve it (a Kafka controller: ZooKeeper-mode brokers never do).
func (b *Backend) describeTopics(ctx context.Context, names []string, all bool) (*described, error) {
	if !b.metadataOnly() {
		p := pager{send: b.controllerRequest, perRequest: b.opts.TopicsPerRequest, pageSize: b.opts.PartitionsPerPage}
		var d *described
		var err error
		if all {
			d, err = p.all(ctx)
		} else {
			d, err = p.named(ctx, names)
		}
		if !unsupported(err) {
			if err == nil && d.requests > 0 {
				b.learnDTP(true) // it answered one
			}
			return d, err
		}
		b.learnDTP(false)
	}
	return b.metadataTopics(ctx, names, all)
}

// learnDTP records whether the controller serves DescribeTopicPartitions.
func (b *Backend) learnDTP(serves bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.noDTP, b.dtpKnown = !serves, true
}

// controllerServesDTP reports whether the controller serves
// DescribeTopicPartitions: as learnt from a describe, or else from its
// ApiVersions (asked once).
func (b *Backend) controllerServesDTP(ctx context.Context) (bool, error) {
	b.mu.Lock()
	known, no := b.dtpKnown, b.noDTP
	b.mu.Unlock()
	if known {
		return !no, nil
	}
	// Sent as an admin request, to the controller, kgo leaves the request
	// as it is: v3+ needs the software name filled in here.
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = softwareName, softwareVersion
	resp, err := responseAs[*kmsg.ApiVersionsResponse](b.controllerRequest(ctx, req))
	if err == nil && resp.ErrorCode != 0 {
		err = codeError("", resp.ErrorCode, nil)
	}
	if err != nil {
		return false, fmt.Errorf("ApiVersions of the controller: %w", err)
	}
	serves := slices.ContainsFunc(resp.ApiKeys, func(k kmsg.ApiVersionsResponseApiKey) bool {
		return k.ApiKey == kmsg.DescribeTopicPartitions.Int16()
	})
	b.learnDTP(serves)
	return serves, nil
}

func (b *Backend) metadataOnly() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.noDTP
}

// metadataTopics is describeTopics with Metadata, split the same way.
// Requests are made afresh (kadm's Metadata answers from kgo's cache,
// which may be seconds old).
func (b *Backend) metadataTopics(ctx context.Context, names []string, all bool) (*described, error) {
	d := newDescribed()
	if all {
		d.requests++
		resp, err := b.metadata(ctx, nil)
		if err != nil {
			return nil, err
		}
		addMetadata(d, resp.Topics)
		return d, nil
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	for start := 0; start < len(names); start += b.opts.TopicsPerRequest {
		d.requests++
		resp, err := b.metadata(ctx, names[start:min(start+b.opts.TopicsPerRequest, len(names))])
		if err != nil {
			return nil, err
		}
		addMetadata(d, resp.Topics)
	}
	return d, nil
}

// metadata sends a Metadata request for the topics (nil: all; empty: none)
// to any node.
func (b *Backend) metadata(ctx context.Context, topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	if topics != nil {
		req.Topics = make([]kmsg.MetadataRequestTopic, 0, len(topics))
	}
	for _, n := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, rt)
	}
	return responseAs[*kmsg.MetadataResponse](b.request(ctx, req))
}

func addMetadata(d *described, topics []kmsg.MetadataResponseTopic) {
	for _, mt := range topics {
		name := deref(mt.Topic)
		if mt.ErrorCode == kerr.UnknownTopicOrPartition.Code {
			d.missing = append(d.missing, name)
			continue
		}
		t := &backend.Topic{Name: name, Internal: mt.IsInternal || znodes.IsInternalTopic(name),
			Err: topicError(name, mt.ErrorCode, nil)}
		if id := znodes.UUID(mt.TopicID); !id.IsZero() {
			t.ID = id.String()
		}
		for _, mp := range mt.Partitions {
			// LEADER_NOT_AVAILABLE and the like show as leader -1, as in
			// DescribeTopicPartitions.
			t.Partitions = append(t.Partitions, backend.Partition{ID: mp.Partition, Leader: mp.Leader,
				LeaderEpoch: mp.LeaderEpoch, Replicas: mp.Replicas, ISR: mp.ISR})
		}
		sort.Slice(t.Partitions, func(i, j int) bool { return t.Partitions[i].ID < t.Partitions[j].ID })
		d.topics[name] = t
	}
}

func partition(t *backend.Topic, id int32) (backend.Partition, bool) {
	for _, p := range t.Partitions {
		if p.ID == id {
			return p, true
		}
	}
	return backend.Partition{}, false
}

// move is a partition's reassignment in progress.
type move struct{ replicas, adding, removing []int32 }

// stillIn reports whether the move, read before the partition's replicas,
// is still under way in them: a move that ended meanwhile has taken its
// removing replicas out.
func (m move) stillIn(replicas []int32) bool {
	for _, r := range m.removing {
		if !slices.Contains(replicas, r) {
			return false
		}
	}
	return true
}

// reassigning lists every reassignment in progress (one request: the
// answer only holds moving partitions). A controller that does not serve
// it, or refuses it for authorization, has none to show, as kafka-topics
// --describe takes it.
func (b *Backend) reassigning(ctx context.Context) (map[backend.TopicPartition]move, error) {
	req := kmsg.NewPtrListPartitionReassignmentsRequest()
	req.TimeoutMillis = timeoutMillis(ctx, 30*time.Second)
	resp, err := responseAs[*kmsg.ListPartitionReassignmentsResponse](b.request(ctx, req))
	switch {
	case unsupported(err):
		return nil, nil
	case err != nil:
		return nil, err
	case resp.ErrorCode == kerr.ClusterAuthorizationFailed.Code:
		return nil, nil
	case resp.ErrorCode != 0:
		return nil, codeError("", resp.ErrorCode, resp.ErrorMessage)
	}
	out := map[backend.TopicPartition]move{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out[backend.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = move{replicas: p.Replicas,
				adding: nonEmpty(p.AddingReplicas), removing: nonEmpty(p.RemovingReplicas)}
		}
	}
	return out, nil
}
