package wireapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// The shape of TestConcurrentCreateTopics.
const (
	ccNames       = 300 // distinct topic names
	ccRequests    = 1000
	ccConns       = 20
	ccPipeline    = 4   // requests in flight per connection
	ccLimit       = 250 // max.partitions: about 40% of what the names ask for
	ccMaxPerBatch = 3   // topics per request: 1..3, distinct within a request
)

// ccTopic is what every request for a name asks for: partitions and RF
// depend on the name only, so every answer can be checked against it.
func ccTopic(i int) (name string, partitions int32, rf int16) {
	return fmt.Sprintf("cc-%03d", i), int32(1 + i%3), int16(1 + (i/3)%3)
}

// ccAnswer is one topic entry of one response.
type ccAnswer struct {
	code    int16
	msg     string
	id      [16]byte
	parts   int32
	rf      int16
	request int
}

// TestConcurrentCreateTopics sends 1,000 CreateTopics requests (1-3 topics
// each, timeout 60 s) over 20 connections, 4 in flight on each, drawing
// from 300 names whose partitions add up to far more than max.partitions.
// Every name must end up created at most once, with exactly one creating
// answer; the other answers must be TOPIC_ALREADY_EXISTS for a created
// name and WILL_EXCEED_PARTITION_LIMITS for one that never fits; and
// ZooKeeper must never hold more partitions than the limit.
func TestConcurrentCreateTopics(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t) // a minute or more under -race
	ctx := testCtx(t, 5*time.Minute)
	d := startDevDaemon(t, ctx, func(c *config.Config) { c.MaxPartitions = ccLimit })
	reqs := ccPlan()

	zkc, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: d.ZooKeeperServers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(zkc.Close)
	reader := zkadmin.NewAdmin(zkc, zkadmin.AdminOptions{})
	stopWatch := watchPartitionCount(t, ctx, reader)

	began := time.Now()
	answers := sendConcurrently(t, ctx, d.KafkaAddr(), reqs)
	took := time.Since(began)
	maxSeen := stopWatch()

	cl, err := reader.ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: true, States: true})
	if err != nil {
		t.Fatal(err)
	}
	_, total := cl.ReplicaCounts()
	if total > ccLimit || maxSeen > ccLimit {
		t.Errorf("max.partitions=%d exceeded: %d partitions at the end, %d at most while running", ccLimit, total, maxSeen)
	}
	stats := checkAnswers(t, cl, answers, total)
	t.Logf("%d requests (%d topic entries) over %d connections in %s: %d topics created (%d partitions of %d allowed), "+
		"%d TOPIC_ALREADY_EXISTS, %d WILL_EXCEED_PARTITION_LIMITS, %d REQUEST_TIMED_OUT; at most %d partitions seen while running",
		len(reqs), stats.entries, ccConns, took.Round(time.Millisecond), stats.created, total, ccLimit,
		stats.exists, stats.limited, stats.timedOut, maxSeen)
}

// ccPlan draws the requests: every name at least twice, then random ones.
func ccPlan() [][]int {
	rng := rand.New(rand.NewPCG(7, 11))
	var pool []int
	for i := range ccNames {
		pool = append(pool, i, i)
	}
	for len(pool) < ccRequests*2 {
		pool = append(pool, rng.IntN(ccNames))
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	reqs := make([][]int, ccRequests)
	next := 0
	for r := range reqs {
		n := 1 + rng.IntN(ccMaxPerBatch)
		seen := map[int]bool{}
		for len(reqs[r]) < n && next < len(pool) {
			if i := pool[next]; !seen[i] {
				seen[i] = true
				reqs[r] = append(reqs[r], i)
			}
			next++
		}
		if len(reqs[r]) == 0 { // the pool ran dry: any name will do
			reqs[r] = []int{rng.IntN(ccNames)}
		}
	}
	return reqs
}

// sendConcurrently sends the requests over ccConns connections with
// ccPipeline in flight on each, and returns the answers by name.
func sendConcurrently(t *testing.T, ctx context.Context, addr string, reqs [][]int) map[string][]ccAnswer {
	t.Helper()
	var mu sync.Mutex
	answers := map[string][]ccAnswer{}
	var wg sync.WaitGroup
	for conn := range ccConns {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestTimeoutOverhead(3*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		node := cl.SeedBrokers()[0]
		sem := make(chan struct{}, ccPipeline)
		for r := conn; r < len(reqs); r += ccConns {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				got, err := createOnce(ctx, node, reqs[r], r)
				if err != nil {
					t.Errorf("request %d: %v", r, err)
					return
				}
				mu.Lock()
				for name, a := range got {
					answers[name] = append(answers[name], a)
				}
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	return answers
}

// createOnce sends one CreateTopics and checks its shape: one entry per
// topic asked, in order.
func createOnce(ctx context.Context, node *kgo.Broker, idx []int, r int) (map[string]ccAnswer, error) {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 60000
	for _, i := range idx {
		name, p, rf := ccTopic(i)
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, p, rf
		req.Topics = append(req.Topics, rt)
	}
	kresp, err := node.Request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := kresp.(*kmsg.CreateTopicsResponse)
	if len(resp.Topics) != len(req.Topics) {
		return nil, fmt.Errorf("%d answers for %d topics", len(resp.Topics), len(req.Topics))
	}
	out := map[string]ccAnswer{}
	for k, rt := range resp.Topics {
		if rt.Topic != req.Topics[k].Topic {
			return nil, fmt.Errorf("answer %d names %s, asked %s", k, rt.Topic, req.Topics[k].Topic)
		}
		a := ccAnswer{code: rt.ErrorCode, id: rt.TopicID, parts: rt.NumPartitions, rf: rt.ReplicationFactor, request: r}
		if rt.ErrorMessage != nil {
			a.msg = *rt.ErrorMessage
		}
		out[rt.Topic] = a
	}
	return out, nil
}

type ccStats struct{ entries, created, exists, limited, timedOut int }

// limitMsg is WILL_EXCEED_PARTITION_LIMITS's message; the numbers are
// checked against the limit, not parsed for their wording.
var limitMsg = regexp.MustCompile(`^WILL_EXCEED_PARTITION_LIMITS:`)

// checkAnswers checks every answer against the final state (see the test's
// comment); total is the final partition count.
func checkAnswers(t *testing.T, cl *zkadmin.Cluster, answers map[string][]ccAnswer, total int) ccStats {
	t.Helper()
	var st ccStats
	for i := range ccNames {
		name, parts, rf := ccTopic(i)
		zt := cl.Topic(name)
		var creators []ccAnswer
		for _, a := range answers[name] {
			st.entries++
			switch a.code {
			case 0, kerr.RequestTimedOut.Code:
				creators = append(creators, a)
				if a.code != 0 {
					st.timedOut++
				}
				if a.parts != parts || a.rf != rf || a.id == [16]byte{} {
					t.Errorf("%s (request %d): created with %d partitions RF %d id %x, asked %d RF %d", name, a.request, a.parts, a.rf, a.id, parts, rf)
				}
			case kerr.TopicAlreadyExists.Code:
				st.exists++
				if zt == nil {
					t.Errorf("%s (request %d): TOPIC_ALREADY_EXISTS for a topic never created", name, a.request)
				}
			case kerr.PolicyViolation.Code:
				st.limited++
				if !limitMsg.MatchString(a.msg) || !strings.Contains(a.msg, strconv.Itoa(ccLimit)) {
					t.Errorf("%s (request %d): POLICY_VIOLATION %q", name, a.request, a.msg)
				}
				if zt != nil {
					t.Errorf("%s (request %d): refused over the limit, yet created", name, a.request)
				}
				if total+int(parts) <= ccLimit {
					t.Errorf("%s (request %d): refused over the limit, yet %d more partitions fit at the end (%d of %d)", name, a.request, parts, total, ccLimit)
				}
			default:
				t.Errorf("%s (request %d): unexpected %v %q", name, a.request, kerr.ErrorForCode(a.code), a.msg)
			}
		}
		checkCreated(t, name, zt, creators, parts, rf)
		if zt != nil {
			st.created++
		}
	}
	return st
}

// checkCreated checks that a created name has exactly one creating answer,
// whose id ZooKeeper holds, and its partitions with leaders; and that a
// name never created has none.
func checkCreated(t *testing.T, name string, zt *zkadmin.Topic, creators []ccAnswer, parts int32, rf int16) {
	t.Helper()
	if zt == nil {
		if len(creators) > 0 {
			t.Errorf("%s: %d creating answers, but not in ZooKeeper", name, len(creators))
		}
		return
	}
	if len(creators) != 1 {
		t.Errorf("%s: %d creating answers, want exactly 1", name, len(creators))
		return
	}
	if creators[0].id != [16]byte(zt.Assignment.TopicID) {
		t.Errorf("%s: answered id %x, ZooKeeper %x", name, creators[0].id, zt.Assignment.TopicID)
	}
	if len(zt.Partitions) != int(parts) {
		t.Errorf("%s: %d partitions in ZooKeeper, asked %d", name, len(zt.Partitions), parts)
	}
	for _, p := range zt.Partitions {
		if len(p.Replicas) != int(rf) || !p.StateRead || p.State.Leader < 0 {
			t.Errorf("%s-%d: replicas %v, state %+v (read %v, %v)", name, p.ID, p.Replicas, p.State, p.StateRead, p.Err)
		}
	}
}

// watchPartitionCount polls the partition count in ZooKeeper until the
// returned stop is called, which returns the highest count seen.
func watchPartitionCount(t *testing.T, ctx context.Context, reader *zkadmin.Admin) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan int)
	go func() {
		highest := 0
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if cl, err := reader.ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: true}); err == nil {
				_, n := cl.ReplicaCounts()
				highest = max(highest, n)
			}
			select {
			case <-ctx.Done():
				done <- highest
				return
			case <-tick.C:
			}
		}
	}()
	return func() int {
		cancel()
		return <-done
	}
}

// startDevDaemon starts kzadmind in dev mode (its own ZooKeeper and three
// simulated brokers) and waits until it is the ready controller with every
// broker registered.
func startDevDaemon(t *testing.T, ctx context.Context, mods ...func(*config.Config)) *daemon.Daemon {
	t.Helper()
	conf := config.Default()
	conf.Dev = true
	conf.NodeID = config.DevNodeID
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = ""
	for _, m := range mods {
		m(&conf)
	}
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	d, err := daemon.Start(ctx, conf, daemon.Options{DevBrokers: numBrokers}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = d.Stop(sctx)
	})
	err = poll(ctx, time.Minute, func() error {
		st := d.Controller().Status()
		if v := d.Controller().Snapshot(); !st.Active || !st.Ready || v == nil || len(v.Brokers) != numBrokers {
			return fmt.Errorf("not the ready controller of %d brokers: %+v", numBrokers, st)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
