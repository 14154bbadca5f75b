package wirebackend

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/znodes"
)

// configResult is one entity's overrides or why they could not be read.
type configResult struct {
	overrides map[string]string
	err       error
}

// DescribeConfigs returns the overrides of the named entities: the configs
// DescribeConfigs reports with the entity's own source (a topic's
// override, a broker's dynamic config, the cluster-wide default). No names
// means every topic, or the cluster-wide default and each live broker.
func (b *Backend) DescribeConfigs(ctx context.Context, entityType string, names []string) ([]backend.EntityConfig, error) {
	switch entityType {
	case znodes.EntityTopics, znodes.EntityBrokers, znodes.EntityUsers, znodes.EntityClients, znodes.EntityIPs:
	default:
		return nil, &backend.Error{Code: kerr.InvalidRequest.Code, Name: kerr.InvalidRequest.Message,
			Message: fmt.Sprintf("entity type %q is not supported; use topics, brokers, users, clients or ips", entityType)}
	}
	var out []backend.EntityConfig
	err := b.retry(ctx, func(ctx context.Context) error {
		var err error
		switch entityType {
		case znodes.EntityTopics:
			out, err = b.describeTopicConfigs(ctx, names)
		case znodes.EntityBrokers:
			out, err = b.describeBrokerConfigs(ctx, names)
		case znodes.EntityUsers:
			out, err = b.describeUserConfigs(ctx, names)
		default:
			out, err = b.describeQuotaEntityConfigs(ctx, entityType, names)
		}
		return err
	})
	return out, err
}

func (b *Backend) describeTopicConfigs(ctx context.Context, names []string) ([]backend.EntityConfig, error) {
	if len(names) == 0 {
		d, err := b.describeTopics(ctx, nil, true)
		if err != nil {
			return nil, err
		}
		for _, t := range d.sorted() {
			names = append(names, t.Name)
		}
	}
	configs, err := b.topicOverrides(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make([]backend.EntityConfig, 0, len(names))
	for _, n := range names {
		c := configs[n]
		if be, ok := c.err.(*backend.Error); ok && be.Code == kerr.UnknownTopicOrPartition.Code {
			return nil, c.err // as the ZooKeeper backend: a named topic must exist
		}
		out = append(out, backend.EntityConfig{EntityType: znodes.EntityTopics, Name: n, Overrides: c.overrides, Err: c.err})
	}
	return out, nil
}

func (b *Backend) describeBrokerConfigs(ctx context.Context, names []string) ([]backend.EntityConfig, error) {
	if len(names) == 0 {
		v, err := b.cluster(ctx)
		if err != nil {
			return nil, err
		}
		names = append(names, backend.DefaultEntity)
		for _, br := range v.Brokers {
			names = append(names, strconv.Itoa(int(br.ID)))
		}
	}
	out := make([]backend.EntityConfig, 0, len(names))
	for _, n := range names {
		overrides, err := b.brokerOverrides(ctx, n)
		if err != nil && b.retriable(err) {
			return nil, err
		}
		out = append(out, backend.EntityConfig{EntityType: znodes.EntityBrokers, Name: n, Overrides: overrides, Err: err})
	}
	return out, nil
}

// topicOverrides describes the topics' configs, TopicsPerRequest at a
// time, keeping the topic-level overrides.
func (b *Backend) topicOverrides(ctx context.Context, names []string) (map[string]configResult, error) {
	out := make(map[string]configResult, len(names))
	for start := 0; start < len(names); start += b.opts.TopicsPerRequest {
		req := kmsg.NewPtrDescribeConfigsRequest()
		for _, n := range names[start:min(start+b.opts.TopicsPerRequest, len(names))] {
			r := kmsg.NewDescribeConfigsRequestResource()
			r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, n
			req.Resources = append(req.Resources, r)
		}
		resp, err := responseAs[*kmsg.DescribeConfigsResponse](b.controllerRequest(ctx, req))
		if err != nil {
			return nil, err
		}
		for _, r := range resp.Resources {
			out[r.ResourceName] = configResult{overrides: overrides(r.Configs, kmsg.ConfigSourceDynamicTopicConfig),
				err: topicError(r.ResourceName, r.ErrorCode, r.ErrorMessage)}
		}
	}
	return out, nil
}

// brokerOverrides reads the cluster-wide default broker configs (from the
// controller) or one broker's dynamic configs (from that broker, the only
// node that answers for it).
func (b *Backend) brokerOverrides(ctx context.Context, name string) (map[string]string, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType = kmsg.ConfigResourceTypeBroker
	source := kmsg.ConfigSourceDynamicDefaultBrokerConfig
	send := b.controllerRequest
	if name != backend.DefaultEntity {
		r.ResourceName, source, send = name, kmsg.ConfigSourceDynamicBrokerConfig, b.request
	}
	req.Resources = append(req.Resources, r)
	resp, err := responseAs[*kmsg.DescribeConfigsResponse](send(ctx, req))
	switch {
	case err != nil:
		return nil, brokerUnsupported(name, "DescribeConfigs", err)
	case len(resp.Resources) != 1:
		return nil, fmt.Errorf("DescribeConfigs of broker %s: %d resources in the answer", name, len(resp.Resources))
	}
	res := resp.Resources[0]
	if err := codeError(entityResource(znodes.EntityBrokers, name), res.ErrorCode, res.ErrorMessage); err != nil {
		return nil, err
	}
	return overrides(res.Configs, source), nil
}

// brokerUnsupported explains a node that does not serve a configs API
// (a broker of another kind may serve little more than Metadata): kgo
// refuses to send what the node does not advertise, and a node that
// advertises more than it serves closes the connection at the request,
// which kgo words as a hint about SASL.
func brokerUnsupported(name, api string, err error) error {
	node := "the controller"
	if name != backend.DefaultEntity {
		node = "broker " + name
	}
	var eof *kgo.ErrFirstReadEOF
	switch {
	case unsupported(err):
		return fmt.Errorf("%s does not serve %s (only it answers for these configs): %w", node, api, err)
	case errors.As(err, &eof):
		return fmt.Errorf("%s closed the connection at %s: it does not serve it, or it requires SASL", node, api)
	}
	return err
}

// overrides keeps the configs whose source is the entity's own; nil when
// there are none, as the ZooKeeper backend has it.
func overrides(configs []kmsg.DescribeConfigsResponseResourceConfig, source kmsg.ConfigSource) map[string]string {
	var out map[string]string
	for _, c := range configs {
		if c.Source == source {
			if out == nil {
				out = map[string]string{}
			}
			out[c.Name] = deref(c.Value)
		}
	}
	return out
}

func entityResource(entityType, name string) string {
	if entityType == znodes.EntityTopics {
		return name
	}
	if name == backend.DefaultEntity {
		return "brokers " + name
	}
	return "broker " + name
}

// AlterConfigs sets and deletes overrides with IncrementalAlterConfigs
// (validateOnly for a dry run). Before and After are read with
// DescribeConfigs; a dry run's After is Before with the changes applied.
func (b *Backend) AlterConfigs(ctx context.Context, req backend.AlterConfigsRequest) (*backend.AlterConfigsResult, error) {
	switch {
	case req.Client != "":
		return b.alterUserClientConfigs(ctx, req)
	case req.EntityType == znodes.EntityUsers:
		return b.alterUserConfigs(ctx, req)
	case req.EntityType == znodes.EntityClients, req.EntityType == znodes.EntityIPs:
		return b.alterQuotaEntityConfigs(ctx, req)
	}
	res, err := b.resourceOf(req.EntityType, req.Name)
	if err != nil {
		return nil, err
	}
	out := &backend.AlterConfigsResult{Writes: backend.Writes{DryRun: req.DryRun}}
	err = b.retry(ctx, func(ctx context.Context) error {
		var err error
		if out.Before, err = b.entityOverrides(ctx, req.EntityType, req.Name); err != nil {
			return err
		}
		if err := b.alterConfigs(ctx, res, req); err != nil {
			return err
		}
		if req.DryRun {
			out.After = applied(out.Before, req)
			return nil
		}
		out.After, err = b.entityOverrides(ctx, req.EntityType, req.Name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// resourceOf is the wire resource of an entity.
func (b *Backend) resourceOf(entityType, name string) (kmsg.IncrementalAlterConfigsRequestResource, error) {
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	switch entityType {
	case znodes.EntityTopics:
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, name
	case znodes.EntityBrokers:
		r.ResourceType = kmsg.ConfigResourceTypeBroker
		if name != backend.DefaultEntity {
			if _, err := strconv.ParseInt(name, 10, 32); err != nil {
				return r, codeError(name, kerr.InvalidRequest.Code, strPtr(
					"The entity name for brokers must be a valid integer broker id, but it is: "+name))
			}
			r.ResourceName = name
		}
	default:
		return r, codeError(name, kerr.InvalidRequest.Code, strPtr(fmt.Sprintf(
			"Entity type %q is not supported; use %s, %s, %s, %s or %s", entityType, znodes.EntityTopics, znodes.EntityBrokers,
			znodes.EntityUsers, znodes.EntityClients, znodes.EntityIPs)))
	}
	return r, nil
}

func (b *Backend) entityOverrides(ctx context.Context, entityType, name string) (map[string]string, error) {
	if entityType == znodes.EntityBrokers {
		return b.brokerOverrides(ctx, name)
	}
	res, err := b.topicOverrides(ctx, []string{name})
	if err != nil {
		return nil, err
	}
	return res[name].overrides, res[name].err
}

// alterConfigs sends one IncrementalAlterConfigs: SET for each set, DELETE
// for each deletion. The cluster-wide default and topics go to the
// controller, a broker's own configs to that broker.
func (b *Backend) alterConfigs(ctx context.Context, res kmsg.IncrementalAlterConfigsRequestResource,
	req backend.AlterConfigsRequest) error {
	for _, k := range slices.Sorted(maps.Keys(req.Set)) {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op, c.Value = k, kmsg.IncrementalAlterConfigOpSet, strPtr(req.Set[k])
		res.Configs = append(res.Configs, c)
	}
	for _, k := range req.Delete {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op = k, kmsg.IncrementalAlterConfigOpDelete
		res.Configs = append(res.Configs, c)
	}
	kreq := kmsg.NewPtrIncrementalAlterConfigsRequest()
	kreq.Resources, kreq.ValidateOnly = append(kreq.Resources, res), req.DryRun
	send := b.controllerRequest
	if res.ResourceType == kmsg.ConfigResourceTypeBroker && res.ResourceName != "" {
		send = b.request
	}
	resp, err := responseAs[*kmsg.IncrementalAlterConfigsResponse](send(ctx, kreq))
	switch {
	case err != nil && req.EntityType == znodes.EntityBrokers:
		return brokerUnsupported(req.Name, "IncrementalAlterConfigs", err)
	case err != nil:
		return err
	case len(resp.Resources) != 1:
		return fmt.Errorf("IncrementalAlterConfigs: %d resources in the answer", len(resp.Resources))
	}
	r := resp.Resources[0]
	if req.EntityType == znodes.EntityTopics {
		return topicError(req.Name, r.ErrorCode, r.ErrorMessage)
	}
	return codeError(entityResource(req.EntityType, req.Name), r.ErrorCode, r.ErrorMessage)
}

// applied is before with the request's sets and deletions.
func applied(before map[string]string, req backend.AlterConfigsRequest) map[string]string {
	after := maps.Clone(before)
	if after == nil {
		after = map[string]string{}
	}
	maps.Copy(after, req.Set)
	for _, k := range req.Delete {
		delete(after, k)
	}
	return after
}

func strPtr(s string) *string { return &s }
