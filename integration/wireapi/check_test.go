package wireapi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// settleTimeout bounds how long a result may take to reach ZooKeeper and
// the brokers after the API answered.
const settleTimeout = 60 * time.Second

// metadataTimeout bounds one Metadata request to one node.
const metadataTimeout = 5 * time.Second

// topicWant is what a topic should look like once settled.
type topicWant struct {
	partitions int
	rf         int
	// config are overrides that /config/topics/<t> must hold (exactly,
	// when exactConfig).
	config      map[string]string
	exactConfig bool
}

// zkTopic reads a topic with its config and partition states; nil when
// ZooKeeper has no such topic.
func (c *cluster) zkTopic(ctx context.Context, name string) (*zkadmin.Topic, error) {
	cl, err := c.reader.ReadCluster(ctx, zkadmin.ReadOptions{Topics: []string{name}, Configs: true, States: true})
	if err != nil {
		return nil, err
	}
	return cl.Topic(name), nil
}

// checkZKTopic compares one read of the topic with want: the assignment,
// the config overrides, and a state znode with a leader among the replicas
// and a full ISR for every partition (every broker is up).
func checkZKTopic(zt *zkadmin.Topic, want topicWant) error {
	if zt == nil {
		return errors.New("not in ZooKeeper")
	}
	if zt.Err != nil || zt.ConfigErr != nil {
		return fmt.Errorf("decode: %v / %v", zt.Err, zt.ConfigErr)
	}
	if len(zt.Partitions) != want.partitions {
		return fmt.Errorf("%d partitions, want %d", len(zt.Partitions), want.partitions)
	}
	if err := checkConfig(zt.Config, want); err != nil {
		return err
	}
	for _, p := range zt.Partitions {
		switch {
		case len(p.Replicas) != want.rf:
			return fmt.Errorf("partition %d replicas %v, want RF %d", p.ID, p.Replicas, want.rf)
		case !p.StateRead || p.Err != nil:
			return fmt.Errorf("partition %d has no state: %v", p.ID, p.Err)
		case !slices.Contains(p.Replicas, p.State.Leader):
			return fmt.Errorf("partition %d leader %d not among %v", p.ID, p.State.Leader, p.Replicas)
		case !sameSet(p.State.ISR, p.Replicas):
			return fmt.Errorf("partition %d ISR %v, replicas %v", p.ID, p.State.ISR, p.Replicas)
		}
	}
	return nil
}

func checkConfig(got map[string]string, want topicWant) error {
	if want.exactConfig && !maps.Equal(got, want.config) {
		return fmt.Errorf("config %v, want exactly %v", got, want.config)
	}
	for k, v := range want.config {
		if got[k] != v {
			return fmt.Errorf("config %s=%q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	return nil
}

// checkBrokerView compares a broker's Metadata for the topic with what
// ZooKeeper holds: partitions, replicas, leaders, leader epochs and ISRs.
func checkBrokerView(md *kmsg.MetadataResponse, zt *zkadmin.Topic) error {
	if len(md.Topics) != 1 || md.Topics[0].Topic == nil || *md.Topics[0].Topic != zt.Name {
		return fmt.Errorf("answer names other topics: %d", len(md.Topics))
	}
	mt := md.Topics[0]
	if err := kerr.ErrorForCode(mt.ErrorCode); err != nil {
		return err
	}
	if zt.Assignment.TopicID != (znodes.UUID{}) && [16]byte(mt.TopicID) != [16]byte(zt.Assignment.TopicID) {
		return fmt.Errorf("topic id %x, ZooKeeper %x", mt.TopicID, zt.Assignment.TopicID)
	}
	if len(mt.Partitions) != len(zt.Partitions) {
		return fmt.Errorf("%d partitions, ZooKeeper %d", len(mt.Partitions), len(zt.Partitions))
	}
	for _, mp := range mt.Partitions {
		if int(mp.Partition) >= len(zt.Partitions) {
			return fmt.Errorf("unknown partition %d", mp.Partition)
		}
		zp := zt.Partitions[mp.Partition]
		switch {
		case mp.ErrorCode != 0:
			return fmt.Errorf("partition %d: %v", mp.Partition, kerr.ErrorForCode(mp.ErrorCode))
		case !slices.Equal(mp.Replicas, zp.Replicas):
			return fmt.Errorf("partition %d replicas %v, ZooKeeper %v", mp.Partition, mp.Replicas, zp.Replicas)
		case mp.Leader != zp.State.Leader || mp.LeaderEpoch != zp.State.LeaderEpoch:
			return fmt.Errorf("partition %d leader %d epoch %d, ZooKeeper %d epoch %d", mp.Partition,
				mp.Leader, mp.LeaderEpoch, zp.State.Leader, zp.State.LeaderEpoch)
		case !sameSet(mp.ISR, zp.State.ISR):
			return fmt.Errorf("partition %d ISR %v, ZooKeeper %v", mp.Partition, mp.ISR, zp.State.ISR)
		}
	}
	return nil
}

// expectTopic waits until ZooKeeper holds the topic as wanted and every
// broker's metadata agrees with ZooKeeper, and returns the settled topic.
func (c *cluster) expectTopic(t *testing.T, ctx context.Context, name string, want topicWant) *zkadmin.Topic {
	t.Helper()
	var zt *zkadmin.Topic
	err := poll(ctx, settleTimeout, func() error {
		var err error
		if zt, err = c.zkTopic(ctx, name); err != nil {
			return err
		}
		if err := checkZKTopic(zt, want); err != nil {
			return fmt.Errorf("ZooKeeper: %w", err)
		}
		for id, addr := range c.brokers {
			md, err := kafkatest.Metadata(ctx, addr, metadataTimeout, name)
			if err != nil {
				return err
			}
			if err := checkBrokerView(md, zt); err != nil {
				return fmt.Errorf("broker %d: %w", id, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("topic %s never settled as %+v: %v\n%s", name, want, err, c.controllerState(ctx))
	}
	return zt
}

// deletionCarriedOut says whether kzadmind's controller deletes topics
// queued for deletion (the deletion package, wired into the controller).
// Set it to false on a controller without it: the marker is still
// checked, REQUEST_TIMED_OUT is accepted for DeleteTopics, and nothing
// more is expected.
const deletionCarriedOut = true

// deleteTimeout is the timeout the tests give DeleteTopics: short while
// deletions are not carried out, as the request can only time out.
func deleteTimeout() time.Duration {
	if deletionCarriedOut {
		return 30 * time.Second
	}
	return 2 * time.Second
}

// expectDeleted checks a DeleteTopics of name that answered respErr. The
// deletion marker (or, once done, nothing) must be in ZooKeeper. With
// deletionCarriedOut the answer must be a success, kzadmind must stop
// listing the topic, and the deletion must complete (znodes gone, no
// broker lists it); without, REQUEST_TIMED_OUT is accepted, as the
// controller never finishes.
func (c *cluster) expectDeleted(t *testing.T, ctx context.Context, name string, respErr error) {
	t.Helper()
	if respErr != nil && (deletionCarriedOut || !errors.Is(respErr, kerr.RequestTimedOut)) {
		t.Errorf("delete %s: %v", name, respErr)
	}
	err := poll(ctx, settleTimeout, func() error {
		ok, _, err := c.zkc.Exists(ctx, znodes.DeleteTopicPath(name))
		if err != nil {
			return err
		}
		gone, err := c.zkGone(ctx, name)
		if err != nil {
			return err
		}
		if !ok && !gone {
			return errors.New("neither queued for deletion nor gone in ZooKeeper")
		}
		if !deletionCarriedOut {
			return nil
		}
		md, err := kafkatest.Metadata(ctx, c.d.KafkaAddr(), metadataTimeout, name)
		if err != nil {
			return err
		}
		if len(md.Topics) != 1 || md.Topics[0].ErrorCode != kerr.UnknownTopicOrPartition.Code {
			return fmt.Errorf("kzadmind still lists it: %+v", md.Topics)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("topic %s not deleted: %v", name, err)
	}
	if !deletionCarriedOut {
		t.Logf("topic %s is queued for deletion (answer: %v); kzadmind does not carry deletions out yet", name, respErr)
		return
	}
	c.expectDeletionCompleted(t, ctx, name)
}

// expectDeletionCompleted waits until the topic's znodes and marker are
// gone and no broker lists the topic any more.
func (c *cluster) expectDeletionCompleted(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	err := poll(ctx, settleTimeout, func() error {
		gone, err := c.zkGone(ctx, name)
		if err != nil {
			return err
		}
		if !gone {
			return errors.New("topic znode still in ZooKeeper")
		}
		for id, addr := range c.brokers {
			md, err := kafkatest.Metadata(ctx, addr, metadataTimeout, name)
			if err != nil {
				return err
			}
			if len(md.Topics) != 1 || md.Topics[0].ErrorCode != kerr.UnknownTopicOrPartition.Code {
				return fmt.Errorf("broker %d still lists it", id)
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("deletion of %s not completed: %v", name, err)
	}
}

// zkGone reports whether neither the topic, its config nor its deletion
// marker is left in ZooKeeper.
func (c *cluster) zkGone(ctx context.Context, name string) (bool, error) {
	for _, p := range []string{znodes.TopicPath(name), znodes.DeleteTopicPath(name),
		znodes.ConfigEntityPath(znodes.EntityTopics, name)} {
		ok, _, err := c.zkc.Exists(ctx, p)
		if err != nil || ok {
			return false, err
		}
	}
	return true, nil
}

// zkConfig reads an entity's config overrides (nil when absent).
func (c *cluster) zkConfig(ctx context.Context, entityType, name string) (map[string]string, error) {
	data, _, err := c.zkc.Get(ctx, znodes.ConfigEntityPath(entityType, name))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ec, err := znodes.DecodeEntityConfig(entityType, name, data)
	if err != nil {
		return nil, err
	}
	return ec.Config, nil
}

// expectConfig waits until the entity's overrides satisfy want.
func (c *cluster) expectConfig(t *testing.T, ctx context.Context, entityType, name string, want topicWant) {
	t.Helper()
	err := poll(ctx, settleTimeout, func() error {
		got, err := c.zkConfig(ctx, entityType, name)
		if err != nil {
			return err
		}
		return checkConfig(got, want)
	})
	if err != nil {
		t.Fatalf("config of %s %s: %v", entityType, name, err)
	}
}

func sameSet(a, b []int32) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// controllerState describes /controller, /controller_epoch and kzadmind's
// own status, for failure messages.
func (c *cluster) controllerState(ctx context.Context) string {
	ctl, _, err1 := c.zkc.Get(ctx, znodes.ControllerPath)
	epoch, st, err2 := c.zkc.Get(ctx, znodes.ControllerEpochPath)
	return fmt.Sprintf("/controller %s (%v); /controller_epoch %s version %d (%v); kzadmind %+v",
		ctl, err1, epoch, st.Version, err2, c.d.Controller().Status())
}
