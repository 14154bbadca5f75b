package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/kzadmin/kzadmin/znodes"
)

// ReadOptions say how much of the cluster ReadCluster reads. Brokers, the
// controller, deletion markers, the pending legacy requests and the
// cluster-wide dynamic defaults are always read.
type ReadOptions struct {
	// AllTopics reads every topic znode; otherwise only those in Topics
	// (names that do not exist are skipped).
	AllTopics bool
	Topics    []string
	// Configs also reads /config/topics/<t> for the topics read.
	Configs bool
	// States also reads every partition's state znode.
	States bool
	// noCluster: the write concerns one config entity alone (a quota or a
	// user's credentials), so writeLoop reads nothing of the cluster and
	// plans with a nil *Cluster.
	noCluster bool
}

// ReadCluster reads the cluster with pipelined reads: /brokers/topics (its
// children and data version) first, then the brokers and the admin znodes,
// then the topic znodes (and configs), then the partition states, each
// phase as one pipelined batch. Decode failures are kept per item; only a
// failure to talk to ZooKeeper fails the call.
func (a *Admin) ReadCluster(ctx context.Context, opts ReadOptions) (*Cluster, error) {
	c, side, err := a.readHead(ctx, opts.AllTopics, nil, false, false)
	if err != nil {
		return nil, err
	}
	want := c.TopicNames
	if !opts.AllTopics {
		want = nil
		for _, n := range opts.Topics {
			if c.HasTopic(n) && c.byName[n] == nil {
				want = append(want, n)
				c.byName[n] = &Topic{}
			}
		}
		sort.Strings(want)
	}
	if err := a.readTopics(ctx, c, side, want, opts.Configs); err != nil {
		return nil, fmt.Errorf("read cluster: %w", err)
	}
	if opts.States {
		if err := a.readStates(ctx, c); err != nil {
			return nil, fmt.Errorf("read cluster: %w", err)
		}
	}
	return c, nil
}

// readHead reads what every cluster read starts with: /brokers/topics (its
// children and data version) and, alongside, the brokers' ids, the
// controller, the deletion markers, the pending legacy requests and the
// dynamic defaults. The version of /brokers/topics is read before any
// assignment: a creator that commits after this read bumps it and so fails
// our fenced multi, and one that committed before is in what we read next.
//
// known, when set, is an earlier listing of /brokers/topics (see
// topicListing): a stat read stands in for the listing when the children
// have not changed since (and none at all for an exact one, trustExact).
//
// watched (the create path) reads the side reads with watches, through a
// WatchedReader taken after the listing's reply, instead of alongside it:
// most are then answered from watches still armed, without a request.
// Taking it after a reply is what keeps them as fresh as reads sent with
// the listing: its barrier takes in every notification sent before that
// reply, so a change another client made before this read began, which
// the reply reflects, has fired its watch by then.
func (a *Admin) readHead(ctx context.Context, allTopics bool, known *topicListing, trustExact,
	watched bool) (*Cluster, sideReads, error) {
	c := &Cluster{Controller: -1, BrokerDefaultsVersion: -1, AllTopics: allTopics, byName: map[string]*Topic{}}
	var side sideReads
	var names []string
	var st Stat
	var err error
	if watched {
		names, st, err = a.listTopics(ctx, known, trustExact)
		if err == nil || errors.Is(err, ErrNoNode) {
			w, werr := a.zk.Watched(ctx)
			if werr != nil {
				return nil, side, fmt.Errorf("read cluster: %w", werr)
			}
			side = a.readSide(ctx, w)
			side.watched = w
		}
	} else {
		var wg sync.WaitGroup
		wg.Go(func() { side = a.readSide(ctx, nil) })
		names, st, err = a.listTopics(ctx, known, trustExact)
		wg.Wait()
	}
	switch {
	case err == nil:
		c.TopicsExist, c.TopicsVersion, c.topicsCversion = true, st.Version, st.Cversion
	case errors.Is(err, ErrNoNode):
		c.TopicsVersion = -1
	default:
		return nil, side, fmt.Errorf("read cluster: %w", err)
	}
	if err := side.apply(c); err != nil {
		return nil, side, fmt.Errorf("read cluster: %w", err)
	}
	c.TopicNames = names
	c.Config, c.ConfigErr = a.cfg.WithDynamic(c.BrokerDefaults)
	return c, side, nil
}

// sideReads are the reads that do not depend on the topic list.
type sideReads struct {
	brokerIDs, deletes ChildrenResult
	singles            []GetResult // controller, reassignment, election, broker defaults
	// brokers are the registrations of the brokers the previous read
	// listed, read alongside their listing rather than after it: brokers
	// rarely change, and this saves a round trip (see brokerReads).
	brokers map[string]GetResult
	// watched is the WatchedReader they were read through, if any: the
	// reads that follow them go through it too.
	watched *WatchedReader
}

var sidePaths = []string{znodes.ControllerPath, znodes.ReassignPartitionsPath,
	znodes.PreferredReplicaElectionPath, znodes.ConfigEntityPath(znodes.EntityBrokers, znodes.DefaultEntityName)}

// With w, they are read with watches, answered from those still armed
// where w can (the create path's: see readHead).
func (a *Admin) readSide(ctx context.Context, w *WatchedReader) sideReads {
	var s sideReads
	var wg sync.WaitGroup
	wg.Go(func() {
		kidPaths := []string{znodes.BrokerIDsPath, znodes.DeleteTopicsPath}
		var kids []ChildrenResult
		if w != nil {
			kids = w.ChildrenMany(ctx, kidPaths, 2)
		} else {
			kids = a.zk.ChildrenMany(ctx, kidPaths, 2)
		}
		s.brokerIDs, s.deletes = kids[0], kids[1]
	})
	if known := a.knownBrokers.get(); len(known) > 0 {
		wg.Go(func() {
			res := a.getMany(ctx, w, known)
			s.brokers = make(map[string]GetResult, len(res))
			for _, r := range res {
				s.brokers[r.Path] = r
			}
		})
	}
	if w != nil {
		s.singles = w.GetOrExistsMany(ctx, sidePaths, a.opts.MaxInFlight)
	} else {
		s.singles = a.zk.GetMany(ctx, sidePaths, a.opts.MaxInFlight)
	}
	wg.Wait()
	return s
}

// getMany reads paths through w when it is set.
func (a *Admin) getMany(ctx context.Context, w *WatchedReader, paths []string) []GetResult {
	if w != nil {
		return w.GetMany(ctx, paths, a.opts.MaxInFlight)
	}
	return a.zk.GetMany(ctx, paths, a.opts.MaxInFlight)
}

// apply decodes the side reads into c. Missing znodes are normal; any other
// ZooKeeper error fails the read.
func (s sideReads) apply(c *Cluster) error {
	for _, r := range []ChildrenResult{s.brokerIDs, s.deletes} {
		if r.Err != nil && !errors.Is(r.Err, ErrNoNode) {
			return r.Err
		}
	}
	c.MarkedForDeletion = make(map[string]bool, len(s.deletes.Children))
	for _, t := range s.deletes.Children {
		c.MarkedForDeletion[t] = true
	}
	for _, r := range s.singles {
		if r.Err != nil && !errors.Is(r.Err, ErrNoNode) {
			return r.Err
		}
	}
	ctl, reass, elect, defaults := s.singles[0], s.singles[1], s.singles[2], s.singles[3]
	if ctl.Err == nil {
		if reg, err := znodes.DecodeControllerRegistration(ctl.Data); err != nil {
			c.ControllerErr = err
		} else {
			c.Controller = reg.BrokerID
		}
	}
	if reass.Err == nil {
		if r, err := znodes.DecodeReassignPartitions(reass.Data); err != nil {
			c.ReassignmentErr = err
		} else {
			c.Reassignment = &r
		}
	}
	if elect.Err == nil {
		if p, err := znodes.DecodePreferredReplicaElection(elect.Data); err != nil {
			c.PreferredElectionErr = err
		} else {
			c.PreferredElection = &p
		}
	}
	if defaults.Err == nil {
		c.BrokerDefaultsVersion = defaults.Stat.Version
		cfg, err := znodes.DecodeEntityConfig(znodes.EntityBrokers, znodes.DefaultEntityName, defaults.Data)
		c.BrokerDefaults, c.BrokerDefaultsErr = cfg.Config, err
	}
	return nil
}

// readTopics reads the broker registrations the side reads lack, the
// wanted topic znodes and (configs) their config znodes in one pipelined
// batch.
func (a *Admin) readTopics(ctx context.Context, c *Cluster, side sideReads, topics []string, configs bool) error {
	all := c.brokerPaths(side.brokerIDs)
	have, paths := side.brokerReads(all)
	a.knownBrokers.set(all)
	nb := len(paths)
	for _, t := range topics {
		paths = append(paths, znodes.TopicPath(t))
	}
	if configs {
		for _, t := range topics {
			paths = append(paths, znodes.ConfigEntityPath(znodes.EntityTopics, t))
		}
	}
	res := a.zk.GetMany(ctx, paths, a.opts.MaxInFlight)
	if err := c.addBrokers(mergeBrokerReads(all, have, res[:nb])); err != nil {
		return err
	}
	for i, t := range topics {
		topic, err := newTopic(t, res[nb+i], c.MarkedForDeletion[t])
		if err != nil {
			return err
		}
		if topic == nil {
			delete(c.byName, t) // deleted since the listing
			continue
		}
		if configs {
			if err := topic.setConfig(res[nb+len(topics)+i]); err != nil {
				return err
			}
		}
		c.Topics = append(c.Topics, topic)
		c.byName[t] = topic
	}
	return nil
}

// brokerPaths returns the registration paths of the ids listed, and
// records names that are not broker ids in BrokerErrors.
func (c *Cluster) brokerPaths(ids ChildrenResult) []string {
	var paths []string
	for _, name := range ids.Children {
		if _, err := znodes.ParseBrokerID(name); err == nil {
			paths = append(paths, znodes.JoinPath(znodes.BrokerIDsPath, name))
		} else {
			c.BrokerErrors = append(c.BrokerErrors, BrokerError{Name: name, Err: err})
		}
	}
	return paths
}

// brokerReads splits the registration paths into those the side reads
// already hold (have) and those still to read: brokers new since the
// previous read, and any whose early read failed or found no znode (it
// may have registered again since).
func (s sideReads) brokerReads(paths []string) (have map[string]GetResult, rest []string) {
	have = make(map[string]GetResult, len(paths))
	for _, p := range paths {
		if r, ok := s.brokers[p]; ok && r.Err == nil {
			have[p] = r
			continue
		}
		rest = append(rest, p)
	}
	return have, rest
}

// mergeBrokerReads puts the registrations in the order of paths, taking
// each from have or, in order, from read (the reads of the paths have
// lacks).
func mergeBrokerReads(paths []string, have map[string]GetResult, read []GetResult) []GetResult {
	out := make([]GetResult, 0, len(paths))
	k := 0
	for _, p := range paths {
		if r, ok := have[p]; ok {
			out = append(out, r)
			continue
		}
		out = append(out, read[k])
		k++
	}
	return out
}

// brokerList is the registration paths the last cluster read listed.
type brokerList struct {
	mu    sync.Mutex
	paths []string
}

func (l *brokerList) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.paths
}

func (l *brokerList) set(paths []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paths = paths
}

func (c *Cluster) addBrokers(res []GetResult) error {
	for _, r := range res {
		name := r.Path[len(znodes.BrokerIDsPath)+1:]
		if errors.Is(r.Err, ErrNoNode) {
			continue // the broker went away between the list and the read
		}
		if r.Err != nil {
			return r.Err
		}
		id, _ := znodes.ParseBrokerID(name)
		reg, err := znodes.DecodeBrokerRegistration(id, r.Data)
		if err != nil {
			c.BrokerErrors = append(c.BrokerErrors, BrokerError{Name: name, Err: err})
			continue
		}
		b := Broker{ID: id, Endpoints: reg.Endpoints, Epoch: r.Stat.Czxid}
		if reg.Rack != nil {
			b.Rack, b.HasRack = *reg.Rack, true
		}
		c.Brokers = append(c.Brokers, b)
	}
	sort.Slice(c.Brokers, func(i, j int) bool { return c.Brokers[i].ID < c.Brokers[j].ID })
	return nil
}

// newTopic decodes one topic znode; it returns nil for a topic deleted
// since the listing.
func newTopic(name string, r GetResult, marked bool) (*Topic, error) {
	t := &Topic{Name: name, MarkedForDeletion: marked, ConfigVersion: -1}
	if errors.Is(r.Err, ErrNoNode) {
		return nil, nil
	}
	if r.Err != nil {
		return nil, r.Err
	}
	asg, err := znodes.DecodeTopicAssignment(name, r.Data)
	if err != nil {
		t.Version, t.Err = r.Stat.Version, err
		return t, nil
	}
	return topicFrom(name, r.Stat.Version, asg, marked), nil
}

// topicFrom is the Topic of a topic znode at version whose data decodes
// to asg.
func topicFrom(name string, version int32, asg znodes.TopicAssignment, marked bool) *Topic {
	t := &Topic{Name: name, MarkedForDeletion: marked, ConfigVersion: -1, Version: version, Assignment: asg}
	t.countReplicas()
	for _, p := range asg.PartitionIDs() {
		t.Partitions = append(t.Partitions, Partition{ID: p, Replicas: asg.Partitions[p],
			Adding: asg.AddingReplicas[p], Removing: asg.RemovingReplicas[p]})
	}
	return t
}

func (t *Topic) setConfig(r GetResult) error {
	if errors.Is(r.Err, ErrNoNode) {
		return nil
	}
	if r.Err != nil {
		return r.Err
	}
	t.ConfigVersion = r.Stat.Version
	cfg, err := znodes.DecodeEntityConfig(znodes.EntityTopics, t.Name, r.Data)
	t.Config, t.ConfigErr = cfg.Config, err
	return nil
}

// readStates reads every partition state of the topics read, pipelined.
func (a *Admin) readStates(ctx context.Context, c *Cluster) error {
	type ref struct{ t, p int }
	var paths []string
	var refs []ref
	for ti, t := range c.Topics {
		for pi, p := range t.Partitions {
			paths = append(paths, znodes.PartitionStatePath(t.Name, p.ID))
			refs = append(refs, ref{ti, pi})
		}
	}
	for i, r := range a.zk.GetMany(ctx, paths, a.opts.MaxInFlight) {
		t := c.Topics[refs[i].t]
		p := &t.Partitions[refs[i].p]
		p.StateRead = true
		switch {
		case errors.Is(r.Err, ErrNoNode):
			p.Err = r.Err
		case r.Err != nil:
			return r.Err
		default:
			p.State, p.Err = znodes.DecodePartitionState(t.Name, p.ID, r.Data)
		}
	}
	return nil
}
