package controller

import (
	"context"
	"sync"
	"time"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// leaderState is everything that exists only while this node is the active
// controller, for one epoch (consul's leaderLoop state, hashicorp/raft's
// leaderState). It is created by elect and torn down by resign, which
// cancels ctx, stops the broker channels and waits for every goroutine it
// started. Only the loop goroutine touches its fields.
type leaderState struct {
	epoch     int32
	zkVersion int32
	session   *zkadmin.Session

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // watch forwarders and timers of this leadership

	watches *watchSet
	chans   *brokerchan.Manager
	cc      *clusterContext
	ready   bool
	del     *deletionState // set at failover step 6 (loadDeletions)

	rebalance *time.Timer

	// preloaded: the context came from a warm standby (standby.go), so
	// the failover skips the reads.
	preloaded bool

	// recovery is the unclean recovery manager's state (recovery.go).
	recovery *recoveryState

	// gauges are the partition gauges' per-topic counts (gauges.go).
	gauges gaugeCounts

	// creates numbers the create multis applied, and refresh holds the
	// reads owed after them (topic_list.go).
	creates createdTopics
	refresh topicRefresh
}

func (c *Controller) newLeaderState(ctx context.Context, epoch, zkVersion int32, sess *zkadmin.Session) (*leaderState, error) {
	chans, err := brokerchan.NewManager(brokerchan.ManagerConfig{
		ControllerID:   c.nodeID,
		Dial:           c.cfg.BrokerDial,
		ConnectTimeout: c.conf.ControllerSocketTimeout,
		RequestTimeout: c.conf.RequestTimeout,
		Logger:         c.log.With().Str("subcomponent", "brokerchan").Logger(), // component is already "controller"
	})
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	ls := &leaderState{
		epoch: epoch, zkVersion: zkVersion, session: sess,
		ctx: lctx, cancel: cancel,
		chans: chans,
		cc:    newClusterContext(),
	}
	ls.watches = newWatchSet(lctx, &ls.wg, ls, c.queue)
	return ls, nil
}

// env is what every election decision needs from this leadership.
func (c *Controller) env(ls *leaderState) election.Env {
	return election.Env{
		ControllerID:            c.nodeID,
		ControllerEpoch:         ls.epoch,
		Live:                    ls.cc,
		LeaderRecoverySupported: c.ibp.LeaderRecoverySupported(),
		ELR:                     c.elrOn(),
	}
}

// resign tears the leadership down (Kafka's onControllerResignation): stop
// the rebalance timer, cancel the watches, close every broker channel
// (dropping queued requests), wait for all of it, and forget the context.
// Requests queued behind this event find the node inactive and are
// answered NOT_CONTROLLER. It never deletes /controller.
func (c *Controller) resign(reason string) {
	ls := c.leader
	if ls == nil {
		return
	}
	c.log.Warn().Int32("epoch", ls.epoch).Str("reason", reason).Msg("resigning as controller")
	c.leader = nil
	if ls.rebalance != nil {
		ls.rebalance.Stop()
	}
	ls.cancel()
	ls.chans.Close()
	ls.wg.Wait()
	c.metrics.resigned()
	c.delMetrics.reset()
	c.elrMetrics.reset()
	c.viewDirty = true
	clear(c.dirtyTopic)
}

// fencedWriteOpts are the batch options for writes of this leadership.
func (ls *leaderState) fenced() zkadmin.BatchOptions {
	return zkadmin.BatchOptions{Fenced: true, EpochZkVersion: ls.zkVersion}
}
