package controller

import (
	"slices"

	"github.com/kzadmin/kzadmin/znodes"
)

// Log-dir failure notifications (reference §2.9). When a log directory of
// a ZooKeeper-mode broker fails, the broker stops the partitions on it and
// posts /log_dir_event_notification/log_dir_event_<seq> naming itself. The
// controller cannot tell from the notification which replicas were on the
// failed directory, so it asks: every replica on the broker goes through
// the OnlineReplica transition, which sends the broker LeaderAndIsr
// (isNew=false) for each hosted partition with leadership. Replicas on the
// failed directory answer KAFKA_STORAGE_ERROR, and the LeaderAndIsr
// response handling (send.go) takes them offline: new leaders where the
// broker led, removal from the ISRs.

// onLogDirEventNotification is Kafka's processLogDirEventNotification:
// read the notifications, handle the failure of the brokers they name,
// delete them (also when one is malformed: it is logged and the others are
// processed).
func (c *Controller) onLogDirEventNotification(ls *leaderState) error {
	ns, err := c.readNotifications(ls, znodes.LogDirEventNotificationPath, znodes.LogDirEventPrefix)
	if err != nil || len(ns) == 0 {
		return err
	}
	c.onBrokerLogDirFailure(ls, c.decodeLogDirEvents(ns))
	return c.deleteNotifications(ls, notificationPaths(ns))
}

// decodeLogDirEvents returns the broker ids the notifications name,
// ascending, each once. Kafka reads only the broker id, whatever the event
// type, and so does this.
func (c *Controller) decodeLogDirEvents(ns []notification) []int32 {
	var ids []int32
	for _, n := range ns {
		err := n.err
		var dec znodes.LogDirEventNotification
		if err == nil {
			dec, err = znodes.DecodeLogDirEventNotification(n.name, n.data)
		}
		if err != nil {
			c.log.Error().Err(err).Str("znode", n.path).Msg("malformed log dir event notification skipped and deleted")
			continue
		}
		if !slices.Contains(ids, dec.BrokerID) {
			ids = append(ids, dec.BrokerID)
		}
	}
	slices.Sort(ids)
	return ids
}

// onBrokerLogDirFailure sends the brokers LeaderAndIsr for all their
// replicas through the OnlineReplica transition. Unlike Kafka, a broker
// that is not registered (it died after posting the event) is skipped:
// Kafka would mark its replicas OnlineReplica although no request can
// reach it, and its restart sends it everything anyway.
func (c *Controller) onBrokerLogDirFailure(ls *leaderState, ids []int32) {
	var live []int32
	for _, id := range ids {
		if ls.cc.Registered(id) {
			live = append(live, id)
			continue
		}
		c.log.Info().Int32("broker", id).Msg("log dir failure of a broker that is no longer registered ignored")
	}
	if len(live) == 0 {
		return
	}
	c.log.Info().Ints32("brokers", live).Msg("handling log directory failure")
	c.replicasToOnline(ls, ls.cc.replicasOnBrokers(live))
}
