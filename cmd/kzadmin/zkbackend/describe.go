package zkbackend

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// ListTopics lists /brokers/topics, reading every topic znode so a
// malformed one is flagged.
func (b *Backend) ListTopics(ctx context.Context) ([]backend.TopicListing, error) {
	c, err := b.admin.ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: true})
	if err != nil {
		return nil, err
	}
	out := make([]backend.TopicListing, 0, len(c.Topics))
	for _, t := range c.Topics {
		l := backend.TopicListing{Name: t.Name, Internal: znodes.IsInternalTopic(t.Name),
			MarkedForDeletion: t.MarkedForDeletion, Err: t.Err, Partitions: len(t.Partitions)}
		if len(t.Partitions) > 0 {
			l.ReplicationFactor = len(t.Assignment.TargetReplicas(t.Partitions[0].ID))
		}
		out = append(out, l)
	}
	return out, nil
}

// Describe reads brokers, topics, partition states and, if asked, configs
// in one pipelined read.
func (b *Backend) Describe(ctx context.Context, req backend.DescribeRequest) (*backend.ClusterView, error) {
	c, err := b.admin.ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: req.All, Topics: req.Topics,
		Configs: req.Configs, States: true})
	if err != nil {
		return nil, err
	}
	v := &backend.ClusterView{Controller: c.Controller, BrokerDefaults: c.BrokerDefaults, Warnings: warnings(c)}
	for _, br := range c.Brokers {
		vb := backend.Broker{ID: br.ID, Rack: br.Rack, HasRack: br.HasRack}
		for _, e := range br.Endpoints {
			vb.Endpoints = append(vb.Endpoints, e.String())
		}
		v.Brokers = append(v.Brokers, vb)
	}
	for _, t := range c.Topics {
		v.Topics = append(v.Topics, viewTopic(t))
	}
	if c.Reassignment != nil {
		v.Pending = map[backend.TopicPartition][]int32{}
		for tp, replicas := range c.Reassignment.ByPartition() {
			v.Pending[backend.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}] = replicas
		}
	}
	return v, nil
}

func viewTopic(t *zkadmin.Topic) backend.Topic {
	vt := backend.Topic{Name: t.Name, Internal: znodes.IsInternalTopic(t.Name), MarkedForDeletion: t.MarkedForDeletion,
		Configs: t.Config, Err: t.Err, ConfigErr: t.ConfigErr}
	if !t.Assignment.TopicID.IsZero() {
		vt.ID = t.Assignment.TopicID.String()
	}
	for _, p := range t.Partitions {
		vp := backend.Partition{ID: p.ID, Leader: -1, Replicas: p.Replicas, Adding: p.Adding, Removing: p.Removing, Err: p.Err}
		if p.StateRead && p.Err == nil {
			s := p.State
			vp.Leader, vp.LeaderEpoch, vp.ISR = s.Leader, s.LeaderEpoch, s.ISR
			vp.ELR, vp.LastKnownELR = s.EligibleLeaderReplicas, s.LastKnownELR
		}
		vt.Partitions = append(vt.Partitions, vp)
	}
	return vt
}

// warnings lists what could not be read at the cluster level.
func warnings(c *zkadmin.Cluster) []string {
	var w []string
	for _, be := range c.BrokerErrors {
		w = append(w, fmt.Sprintf("broker registration %s: %v", be.Name, be.Err))
	}
	if c.ControllerErr != nil {
		w = append(w, fmt.Sprintf("controller: %v", c.ControllerErr))
	}
	if c.ReassignmentErr != nil {
		w = append(w, fmt.Sprintf("reassignment request (ignored by Kafka, blocks new ones): %v", c.ReassignmentErr))
	}
	if c.PreferredElectionErr != nil {
		w = append(w, fmt.Sprintf("preferred election request: %v", c.PreferredElectionErr))
	}
	if c.BrokerDefaultsErr != nil {
		w = append(w, fmt.Sprintf("cluster-wide broker config: %v", c.BrokerDefaultsErr))
	}
	if c.ConfigErr != nil {
		w = append(w, fmt.Sprintf("cluster-wide broker config values ignored by kzadmin: %v", c.ConfigErr))
	}
	return w
}

// DescribeConfigs reads config overrides.
func (b *Backend) DescribeConfigs(ctx context.Context, entityType string, names []string) ([]backend.EntityConfig, error) {
	switch entityType {
	case znodes.EntityTopics:
		return b.topicConfigs(ctx, names)
	case znodes.EntityBrokers:
		return b.brokerConfigs(ctx, names)
	case znodes.EntityUsers, znodes.EntityClients, znodes.EntityIPs:
		return b.quotaEntityConfigs(ctx, entityType, names)
	}
	return nil, &backend.Error{Code: zkadmin.CodeInvalidRequest, Name: backend.ErrorName(zkadmin.CodeInvalidRequest),
		Message: fmt.Sprintf("entity type %q is not supported; use topics, brokers, users, clients or ips", entityType)}
}

func (b *Backend) topicConfigs(ctx context.Context, names []string) ([]backend.EntityConfig, error) {
	c, err := b.admin.ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: len(names) == 0, Topics: names, Configs: true})
	if err != nil {
		return nil, err
	}
	var out []backend.EntityConfig
	for _, n := range names {
		if !c.HasTopic(n) {
			return nil, convertErr(&zkadmin.AdminError{Kind: zkadmin.KindUnknownTopic, Code: zkadmin.CodeUnknownTopicOrPartition,
				Resource: n, Message: fmt.Sprintf("Topic '%s' does not exist.", n)})
		}
	}
	for _, t := range c.Topics {
		out = append(out, backend.EntityConfig{EntityType: znodes.EntityTopics, Name: t.Name, Overrides: t.Config, Err: t.ConfigErr})
	}
	return out, nil
}

func (b *Backend) brokerConfigs(ctx context.Context, names []string) ([]backend.EntityConfig, error) {
	if len(names) == 0 {
		c, err := b.admin.ReadCluster(ctx, zkadmin.ReadOptions{})
		if err != nil {
			return nil, err
		}
		names = append(names, znodes.DefaultEntityName)
		ids := make([]int, 0, len(c.Brokers))
		for _, br := range c.Brokers {
			ids = append(ids, int(br.ID))
		}
		sort.Ints(ids)
		for _, id := range ids {
			names = append(names, strconv.Itoa(id))
		}
	}
	out := make([]backend.EntityConfig, 0, len(names))
	for _, n := range names {
		cfg, _, err := b.admin.ReadEntityConfig(ctx, znodes.EntityBrokers, n)
		ec := backend.EntityConfig{EntityType: znodes.EntityBrokers, Name: n, Overrides: cfg}
		if err != nil {
			if _, ok := err.(*znodes.DecodeError); !ok {
				return nil, err
			}
			ec.Err = err
		}
		out = append(out, ec)
	}
	return out, nil
}
