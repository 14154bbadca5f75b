package handler

// CreateTopics (key 19), v0-7, on the active controller only (reference
// apis.md §4, seed 000).
//
// Behaviour, per request entry and in request order; the first failure
// decides an entry's result, and one entry's failure never stops another
// (the batch is not transactional):
//  1. Not the active controller: every entry NOT_CONTROLLER, nothing else.
//  2. __cluster_metadata: INVALID_REQUEST, "Creation of internal topic
//     __cluster_metadata is prohibited."
//  3. A name given more than once: v1+ every entry with it gets
//     INVALID_REQUEST, "Found multiple entries for this topic.", as Kafka
//     does. v0 follows seed 000 instead (design brief §3): only the last
//     entry for the name is processed, and the earlier ones are answered
//     with its result (v0's response is a map by name in the seed).
//  4. CREATE denied on both the cluster and the topic:
//     TOPIC_AUTHORIZATION_FAILED, "Authorization failed.". DESCRIBE_CONFIGS
//     denied on the topic withholds the v5+ configs (TopicConfigErrorCode
//     29).
//  5. The topic is in the controller's view: TOPIC_ALREADY_EXISTS.
//  6. A null config value: INVALID_CONFIG.
//  7. Assignment xor partitions + replication factor. When both are given
//     the assignment wins and the counts are ignored, as seed 000 says;
//     Kafka 2.x+ answers INVALID_REQUEST there, which no client relies on
//     (sarama sends both). Assignment partition ids must be exactly
//     0..n-1 (a repeated id overwrites the earlier one, as in Kafka);
//     the Admin checks that after the replica lists (step 8), as Kafka's
//     validateTopicCreate does.
//     Without an assignment, -1 takes num.partitions and
//     default.replication.factor at every version (KafkaJS sends -1 at
//     v0-3); 0 and other negatives are INVALID_PARTITIONS /
//     INVALID_REPLICATION_FACTOR.
//  8. Admin does the rest in Kafka's order, for all entries that got this
//     far in one batch call when it offers one (zkadmin.Admin.CreateTopics:
//     the entries are planned in request order, each against the limits
//     as the earlier ones leave them): name, deletion marker,
//     existence in ZooKeeper, collisions, placement (rack-aware; manual
//     assignments naming unregistered brokers are INVALID_REPLICA_ASSIGNMENT,
//     as in KRaft, and their partition ids are checked after their lists),
//     configs, and the partition limits, all before anything
//     is written. validateOnly writes nothing.
//  9. Last, just before its write, the topic takes its partitions from
//     the requester's controller mutation quota (KIP-599,
//     mutation_quota.go): from v6 a topic finding the bucket below zero
//     gets THROTTLING_QUOTA_EXCEEDED; older versions are only told the
//     throttle time. validateOnly takes nothing.
//
// Timeout: validateOnly, or nothing created, answers at once. timeout <= 0
// answers at once with REQUEST_TIMED_OUT for the topics created (they
// exist). timeout > 0 waits until the controller's view shows the topic,
// by its new id, with a leader and an ISR for every partition (seed 000's
// "complete" metadata); what is still incomplete at the deadline gets
// REQUEST_TIMED_OUT and may still come online. Creation is never rolled
// back.
//
// Version notes: v1+ ErrorMessage and validateOnly; v2+ ThrottleMillis;
// v5+ NumPartitions, ReplicationFactor and every topic config with its
// source (also for validateOnly); failures, REQUEST_TIMED_OUT included,
// get -1/-1 and no configs, and TopicConfigErrorCode 0 except for the
// failures of steps 2-4, which keep 29 when DESCRIBE_CONFIGS is denied
// (Kafka resets only what its admin manager answered). v7+ TopicID (zero
// for validateOnly; kept with REQUEST_TIMED_OUT, as Kafka does).

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// createdTopic is a topic written (or validated) by this request.
type createdTopic struct {
	idx     int // index of its response entry
	id      znodes.UUID
	entries int // partitions
}

func (h *Handlers) createTopics(ctx context.Context, req *wire.Request, r *kmsg.CreateTopicsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.CreateTopicsResponse)
	resp.Topics = make([]kmsg.CreateTopicsResponseTopic, len(r.Topics))
	for i, t := range r.Topics {
		resp.Topics[i] = kmsg.NewCreateTopicsResponseTopic()
		resp.Topics[i].Topic = t.Topic
		// v5+: Kafka's results start with an empty list of configs, never
		// null, whatever becomes of the entry.
		resp.Topics[i].Configs = []kmsg.CreateTopicsResponseTopicConfig{}
	}
	v := h.cluster.View()
	if !v.Active {
		for i := range resp.Topics {
			resp.Topics[i].ErrorCode = kerr.NotController.Code
		}
		return resp
	}
	validateOnly := r.Version >= 1 && r.ValidateOnly
	var defaults map[string]string // read once, when the first v5+ success needs it
	// The configs of a topic without overrides, listed once: with the
	// same defaults they are the same for each, and kmsg only reads them.
	var plainConfigs []kmsg.CreateTopicsResponseTopicConfig
	var created []createdTopic
	lastOf, counts := lastEntries(r.Topics)
	todo, reqs := h.prechecked(ctx, req, r, v, resp, lastOf, counts)
	if len(reqs) > 0 && !validateOnly {
		// KIP-599: each topic takes its partitions from the requester's
		// quota after its checks, just before its write.
		q := h.mutationQuota(ctx, req, r.Version, createTopicsStrictFrom)
		for i := range reqs {
			reqs[i].Admit = admit(q)
		}
		defer func() { resp.ThrottleMillis = max(resp.ThrottleMillis, throttleOf(q)) }()
	}
	for k, o := range h.createAll(ctx, reqs) {
		i := todo[k]
		t, rt, res := &r.Topics[i], &resp.Topics[i], o.Result
		if o.Err != nil {
			setTopicError(rt, h.errorOf(o.Err))
			continue
		}
		created = append(created, createdTopic{idx: i, id: res.TopicID, entries: len(res.Assignment)})
		if r.Version >= 5 {
			if defaults == nil {
				defaults = res.BrokerDefaults // as the plan read them
			}
			if defaults == nil {
				defaults = h.readDefaults(ctx)
			}
			h.fillCreated(ctx, req, rt, t, res, defaults, &plainConfigs)
		}
		if !validateOnly {
			rt.TopicID = res.TopicID
		}
	}
	if !validateOnly && len(created) > 0 {
		h.awaitCreated(ctx, r.TimeoutMillis, resp, created)
	}
	if r.Version == 0 {
		for i, t := range r.Topics {
			if last := lastOf[t.Topic]; last != i {
				resp.Topics[i] = resp.Topics[last]
			}
		}
	}
	return resp
}

// prechecked makes the checks before the Admin's (precheckTopic) and
// answers the entries that fail them; it returns the others' indexes in
// request order with their create requests. In v0 only the last entry of
// a name is created; the others get its answer afterwards.
func (h *Handlers) prechecked(ctx context.Context, req *wire.Request, r *kmsg.CreateTopicsRequest, v *View,
	resp *kmsg.CreateTopicsResponse, lastOf map[string]int, counts map[string]int) (todo []int, reqs []zkadmin.CreateTopicRequest) {
	validateOnly := r.Version >= 1 && r.ValidateOnly
	for i := range r.Topics {
		t := &r.Topics[i]
		if r.Version == 0 && lastOf[t.Topic] != i {
			continue
		}
		if e, failed := h.requestCheck(ctx, req, r.Version, t, counts[t.Topic]); failed {
			setTopicError(&resp.Topics[i], e)
			if !h.allows(ctx, req, OpDescribeConfigs, TopicResource(t.Topic)) {
				resp.Topics[i].ConfigErrorCode = kerr.TopicAuthorizationFailed.Code
			}
			continue
		}
		if e, pre := h.precheckTopic(v, t); pre {
			setTopicError(&resp.Topics[i], e)
			continue
		}
		todo = append(todo, i)
		reqs = append(reqs, createRequest(t, validateOnly))
	}
	return todo, reqs
}

// batchCreator is an Admin that also creates many topics in one go
// (*zkadmin.Admin does: one cluster read and few multis for the whole
// request instead of a read and a multi per topic).
type batchCreator interface {
	CreateTopics(ctx context.Context, reqs []zkadmin.CreateTopicRequest) ([]zkadmin.CreateTopicOutcome, error)
}

// createAll creates the request's topics that passed the prechecks, in
// order, through the batch call when the Admin has it. Each outcome carries
// its topic's error, a ZooKeeper failure included, so the batch call's own
// error adds nothing here.
func (h *Handlers) createAll(ctx context.Context, reqs []zkadmin.CreateTopicRequest) []zkadmin.CreateTopicOutcome {
	if len(reqs) == 0 {
		return nil
	}
	if b, ok := h.admin.(batchCreator); ok {
		out, err := b.CreateTopics(ctx, reqs)
		if err != nil {
			h.log.Warn().Err(err).Int("topics", len(reqs)).Msg("creating topics")
		}
		if len(out) == len(reqs) {
			return out
		}
		if err == nil {
			err = fmt.Errorf("create topics: %d outcomes for %d topics", len(out), len(reqs))
		}
		out = make([]zkadmin.CreateTopicOutcome, len(reqs))
		for i := range out {
			out[i].Err = err
		}
		return out
	}
	out := make([]zkadmin.CreateTopicOutcome, len(reqs))
	for i, req := range reqs {
		out[i].Result, out[i].Err = h.admin.CreateTopic(ctx, req)
	}
	return out
}

// lastEntries maps each name to the index of its last entry and to its
// number of entries.
func lastEntries(topics []kmsg.CreateTopicsRequestTopic) (last, counts map[string]int) {
	last = make(map[string]int, len(topics))
	counts = make(map[string]int, len(topics))
	for i, t := range topics {
		last[t.Topic] = i
		counts[t.Topic]++
	}
	return last, counts
}

// requestCheck makes KafkaApis' own checks of an entry (steps 2-4 of
// the file comment); failed reports a refusal.
func (h *Handlers) requestCheck(ctx context.Context, req *wire.Request, version int16,
	t *kmsg.CreateTopicsRequestTopic, entries int) (e apiError, failed bool) {
	name := t.Topic
	switch {
	case name == znodes.ClusterMetadataTopic:
		return newAPIError(kerr.InvalidRequest.Code, "Creation of internal topic "+name+" is prohibited."), true
	case version >= 1 && entries > 1:
		return newAPIError(kerr.InvalidRequest.Code, "Found multiple entries for this topic."), true
	case !h.allows(ctx, req, OpCreate, ClusterResource()) && !h.allows(ctx, req, OpCreate, TopicResource(name)):
		return newAPIError(kerr.TopicAuthorizationFailed.Code, "Authorization failed."), true
	}
	return errNone, false
}

// precheckTopic makes the checks after KafkaApis' and before Admin's
// (steps 5-7 of the file comment); pre reports a failure.
func (h *Handlers) precheckTopic(v *View, t *kmsg.CreateTopicsRequestTopic) (e apiError, pre bool) {
	name := t.Topic
	switch {
	case v.Live(name) != nil:
		return newAPIError(kerr.TopicAlreadyExists.Code, fmt.Sprintf("Topic '%s' already exists.", name)), true
	}
	if nulls := nullConfigs(t.Configs); len(nulls) > 0 {
		return newAPIError(kerr.InvalidConfig.Code,
			"Null value not supported for topic configs: "+strings.Join(nulls, ",")), true
	}
	if len(t.ReplicaAssignment) > 0 {
		// The Admin checks the rest, the partition ids last
		// (zkadmin.CreateTopicRequest.AssignmentIDs).
		return errNone, false
	}
	switch {
	case t.NumPartitions == 0 || t.NumPartitions < -1:
		return newAPIError(kerr.InvalidPartitions.Code, "Number of partitions must be larger than 0."), true
	case t.ReplicationFactor == 0 || t.ReplicationFactor < -1:
		return newAPIError(kerr.InvalidReplicationFactor.Code, "Replication factor must be larger than 0."), true
	}
	return errNone, false
}

// nullConfigs returns the config names with a null value.
func nullConfigs(cfgs []kmsg.CreateTopicsRequestTopicConfig) []string {
	var out []string
	for _, c := range cfgs {
		if c.Value == nil {
			out = append(out, c.Name)
		}
	}
	return out
}

// assignmentLists turns the request's assignment into replica lists in
// ascending partition id, with those ids (the Admin refuses ids other
// than 0..n-1 after checking the lists, where Kafka does). A repeated id
// overwrites the earlier one, as in Kafka's map.
func assignmentLists(asg []kmsg.CreateTopicsRequestTopicReplicaAssignment) (lists [][]int32, ids []int32) {
	byID := make(map[int32][]int32, len(asg))
	for _, a := range asg {
		byID[a.Partition] = a.Replicas
	}
	ids = slices.Sorted(maps.Keys(byID))
	lists = make([][]int32, len(ids))
	for i, id := range ids {
		lists[i] = byID[id]
		if lists[i] == nil {
			lists[i] = []int32{}
		}
	}
	return lists, ids
}

// createRequest builds Admin's request; an assignment wins over counts.
func createRequest(t *kmsg.CreateTopicsRequestTopic, dryRun bool) zkadmin.CreateTopicRequest {
	req := zkadmin.CreateTopicRequest{Topic: t.Topic, DryRun: dryRun}
	if len(t.ReplicaAssignment) > 0 {
		req.Assignment, req.AssignmentIDs = assignmentLists(t.ReplicaAssignment)
	} else {
		req.Partitions, req.ReplicationFactor = t.NumPartitions, t.ReplicationFactor
	}
	if len(t.Configs) > 0 {
		req.Config = make(map[string]string, len(t.Configs))
		for _, c := range t.Configs {
			req.Config[c.Name] = *c.Value // null values were refused before
		}
	}
	return req
}

// setTopicError records a failure; failures carry no v5+ metadata (an
// empty list of configs, as Kafka resets them).
func setTopicError(rt *kmsg.CreateTopicsResponseTopic, e apiError) {
	rt.ErrorCode, rt.ErrorMessage = e.code, e.msg
	rt.NumPartitions, rt.ReplicationFactor, rt.ConfigErrorCode = -1, -1, 0
	rt.Configs = []kmsg.CreateTopicsResponseTopicConfig{}
}

// readDefaults reads the cluster-wide broker defaults for the v5+
// configs; failing that, the configs show Kafka's defaults.
func (h *Handlers) readDefaults(ctx context.Context) map[string]string {
	cfg, err := h.brokerDefaults(ctx)
	if err != nil {
		h.log.Warn().Err(err).Msg("reading the cluster-wide broker configs")
	}
	if cfg == nil {
		cfg = map[string]string{}
	}
	return cfg
}

// fillCreated sets the v5+ metadata of a topic created or validated.
func (h *Handlers) fillCreated(ctx context.Context, req *wire.Request, rt *kmsg.CreateTopicsResponseTopic,
	t *kmsg.CreateTopicsRequestTopic, res *zkadmin.CreateTopicResult, defaults map[string]string,
	plainConfigs *[]kmsg.CreateTopicsResponseTopicConfig) {
	rt.NumPartitions = int32(len(res.Assignment))
	if len(res.Assignment) > 0 {
		rt.ReplicationFactor = int16(len(res.Assignment[0]))
	}
	if !h.allows(ctx, req, OpDescribeConfigs, TopicResource(t.Topic)) {
		rt.ConfigErrorCode = kerr.TopicAuthorizationFailed.Code
		return
	}
	if len(t.Configs) == 0 {
		if *plainConfigs == nil {
			*plainConfigs = createTopicsConfigs(topicConfigEntries(nil, defaults))
		}
		rt.Configs = *plainConfigs
		return
	}
	overrides := make(map[string]string, len(t.Configs))
	for _, c := range t.Configs {
		overrides[c.Name] = *c.Value
	}
	rt.Configs = createTopicsConfigs(topicConfigEntries(overrides, defaults))
}

// awaitCreated answers the created topics per the timeout (see the file
// comment): REQUEST_TIMED_OUT for each one whose partitions do not all
// have a leader and an ISR in the view in time.
func (h *Handlers) awaitCreated(ctx context.Context, timeoutMs int32, resp *kmsg.CreateTopicsResponse,
	created []createdTopic) {
	complete := func(v *View, c createdTopic) bool {
		t := v.Live(resp.Topics[c.idx].Topic)
		return t != nil && t.ID == c.id && partitionsOnline(t, c.entries)
	}
	v := h.await(ctx, timeoutMs, func(v *View) bool {
		for _, c := range created {
			if !complete(v, c) {
				return false
			}
		}
		return true
	})
	for _, c := range created {
		if timeoutMs <= 0 || !complete(v, c) {
			rt := &resp.Topics[c.idx]
			id := rt.TopicID
			setTopicError(rt, codeOnly(kerr.RequestTimedOut.Code))
			rt.TopicID = id
		}
	}
}

// partitionsOnline reports whether t has n partitions, each with a leader
// and a non-empty ISR.
func partitionsOnline(t *controller.TopicView, n int) bool {
	if len(t.Partitions) < n {
		return false
	}
	for _, p := range t.Partitions {
		if p.Leader < 0 || len(p.ISR) == 0 {
			return false
		}
	}
	return true
}
