package wireapi

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// bounce shuts broker id down in a controlled way (SIGTERM: it asks
// kzadmind to move its leaderships first), starts it again, and waits until it is back in the ISR of every partition of
// topics.
func (c *cluster) bounce(t *testing.T, ctx context.Context, id int32, topics ...string) {
	t.Helper()
	began := time.Now()
	b := c.kafka.Broker(id)
	if _, err := b.Stop(); err != nil {
		t.Fatalf("stop broker %d: %v", id, err)
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatalf("restart broker %d: %v", id, err)
	}
	for _, name := range topics {
		err := poll(ctx, settleTimeout, func() error {
			zt, err := c.zkTopic(ctx, name)
			if err != nil || zt == nil {
				return fmt.Errorf("read %s: %v", name, err)
			}
			for _, p := range zt.Partitions {
				if slices.Contains(p.Replicas, id) && !slices.Contains(p.State.ISR, id) {
					return fmt.Errorf("%s-%d ISR %v lacks %d", name, p.ID, p.State.ISR, id)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("broker %d did not rejoin the ISRs: %v", id, err)
		}
	}
	t.Logf("broker %d bounced (controlled shutdown, restart, back in the ISRs) in %s", id, time.Since(began).Round(time.Millisecond))
}

// leaders maps each partition of a ZooKeeper topic to its leader.
func (c *cluster) leaders(ctx context.Context, name string) (map[int32]int32, error) {
	zt, err := c.zkTopic(ctx, name)
	if err != nil || zt == nil {
		return nil, fmt.Errorf("read %s: %v", name, err)
	}
	out := map[int32]int32{}
	for _, p := range zt.Partitions {
		out[p.ID] = p.State.Leader
	}
	return out, nil
}

// configEntry is one DescribeConfigs entry, in a comparable form.
type configEntry struct {
	Value     string
	Null      bool
	Source    int8
	ReadOnly  bool
	Sensitive bool
}

// describeTopicConfigs sends DescribeConfigs for one topic to the node at
// addr itself and returns its entries by name.
func describeTopicConfigs(ctx context.Context, addr, topic string) (map[string]configEntry, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, topic
	req.Resources = append(req.Resources, res)
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	kresp, err := cl.SeedBrokers()[0].Request(rctx, req)
	if err != nil {
		return nil, fmt.Errorf("DescribeConfigs to %s: %w", addr, err)
	}
	resp := kresp.(*kmsg.DescribeConfigsResponse)
	if len(resp.Resources) != 1 {
		return nil, fmt.Errorf("DescribeConfigs to %s: %d resources", addr, len(resp.Resources))
	}
	r := resp.Resources[0]
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return nil, fmt.Errorf("DescribeConfigs to %s: %w (%v)", addr, err, r.ErrorMessage)
	}
	out := make(map[string]configEntry, len(r.Configs))
	for _, e := range r.Configs {
		ce := configEntry{Null: e.Value == nil, Source: int8(e.Source), ReadOnly: e.ReadOnly, Sensitive: e.IsSensitive}
		if e.Value != nil {
			ce.Value = *e.Value
		}
		out[e.Name] = ce
	}
	return out, nil
}

// dynamicOnly keeps the entries set on the topic itself.
func dynamicOnly(entries map[string]configEntry) map[string]string {
	out := map[string]string{}
	for k, e := range entries {
		if e.Source == int8(kmsg.ConfigSourceDynamicTopicConfig) {
			out[k] = e.Value
		}
	}
	return out
}

// compareTopicConfigs sends the same DescribeConfigs to kzadmind and to a
// broker and compares the answers: the overrides must agree exactly; the
// defaults may differ only where the broker's own settings differ from
// Kafka's defaults, which is logged.
func (c *cluster) compareTopicConfigs(t *testing.T, ctx context.Context, topic string, want map[string]string) {
	t.Helper()
	var ours, theirs map[string]configEntry
	err := poll(ctx, settleTimeout, func() error {
		var err error
		if ours, err = describeTopicConfigs(ctx, c.d.KafkaAddr(), topic); err != nil {
			return err
		}
		if theirs, err = describeTopicConfigs(ctx, c.brokers[1], topic); err != nil {
			return err
		}
		for who, got := range map[string]map[string]configEntry{"kzadmind": ours, "broker 1": theirs} {
			if d := dynamicOnly(got); !maps.Equal(d, want) {
				return fmt.Errorf("%s shows overrides %v, want %v", who, d, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("DescribeConfigs %s: %v", topic, err)
	}
	var diffs []string
	for name, o := range ours {
		th, ok := theirs[name]
		switch {
		case !ok:
			diffs = append(diffs, name+": only kzadmind lists it")
		case o != th:
			diffs = append(diffs, fmt.Sprintf("%s: kzadmind %+v, broker %+v", name, o, th))
		}
	}
	for name := range theirs {
		if _, ok := ours[name]; !ok {
			diffs = append(diffs, name+": only the broker lists it")
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		t.Errorf("DescribeConfigs %s: kzadmind and a real broker differ in %d of %d entries:\n%v",
			topic, len(diffs), len(theirs), diffs)
	} else {
		t.Logf("DescribeConfigs %s: kzadmind and a real broker agree on all %d entries", topic, len(theirs))
	}
}
