package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestGoldenScenarios runs the datadriven scenarios in testdata/golden: a
// real controller over real ZooKeeper with simulated brokers, driven one
// command at a time, the outputs compared with the files. Run with
// -rewrite to regenerate them. The commands:
//
//	brokers 1 2 3                          start brokers, then the controller (id 100)
//	add-broker 4                           start one more broker
//	create-topic foo assignment=1,2|2,3    write the assignment znode as an admin tool does
//	stabilize                              wait until the controller is idle and every broker agrees with ZooKeeper
//	kill-broker 2                          stop a broker at once (its session closes)
//	restart-broker 2                       start it again (new session, new broker epoch)
//	controlled-shutdown 1                  SIGTERM: ControlledShutdown, then stop
//	lag 3 / unlag 3                        make a follower fall behind / catch up; leaders shrink or expand ISRs with AlterPartition
//	elect preferred|unclean foo-0 ...      ElectLeaders v2; prints each partition's error
//	set-config topic foo k=v               a topic config override, with its change notification
//	reassign foo-0 3,1 | reassign foo-0 cancel   AlterPartitionReassignments
//	delete-topic foo                       write the deletion marker
//	show partitions                        every partition's assignment and state znode
//	show requests [ids...] [gone=1,2]      control requests sent to those brokers (all) since the last show;
//	                                       gone brokers stopped during the step, so the UpdateMetadata
//	                                       queued to them as they went may or may not have been sent:
//	                                       their UpdateMetadata lines are left out
//
// Outputs are deterministic: assignments are explicit, requests are
// summarised per partition, sorted and without duplicates, since how the
// controller batches them depends on timing.
func TestGoldenScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata/golden", func(t *testing.T, path string) {
		g := &goldenScenario{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return g.run(t, d)
		})
	})
}

// goldenScenario is the cluster one scenario file acts on.
type goldenScenario struct {
	obs   *zkadmin.Client
	admin *zkadmin.Admin
	sim   *brokersim.Cluster
	ctl   *node
	log   *requestLog
}

const goldenControllerID = 100

func (g *goldenScenario) run(t *testing.T, d *datadriven.TestData) string {
	if g.sim == nil && d.Cmd != "brokers" {
		d.Fatalf(t, "the first command must be brokers")
	}
	switch d.Cmd {
	case "brokers":
		g.start(t, goldenIDs(t, d, 0))
		return "ok"
	case "add-broker":
		for _, id := range goldenIDs(t, d, 0) {
			if _, err := g.sim.AddBroker(testCtx(t), goldenSpec(id)); err != nil {
				d.Fatalf(t, "add broker %d: %v", id, err)
			}
		}
		return "ok"
	case "create-topic":
		return g.createTopic(t, d)
	case "stabilize":
		g.stabilize(t, d)
		return "ok"
	case "kill-broker", "restart-broker", "controlled-shutdown", "lag", "unlag":
		return g.brokerAction(t, d)
	case "elect":
		return g.elect(t, d)
	case "set-config":
		return g.setConfig(t, d)
	case "reassign":
		return g.reassign(t, d)
	case "delete-topic":
		if _, err := g.admin.MarkTopicForDeletion(testCtx(t), d.CmdArgs[0].Key, false); err != nil {
			return "error: " + err.Error()
		}
		return "ok"
	case "show":
		return g.show(t, d)
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func goldenSpec(id int32) brokersim.BrokerSpec {
	return brokersim.BrokerSpec{ID: id, Rack: fmt.Sprintf("rack-%d", id%3)}
}

// start runs the brokers, then the controller with a recording dialer.
func (g *goldenScenario) start(t *testing.T, ids []int32) {
	chroot := testChroot(t)
	g.obs = connectZK(t, chroot, "", 0)
	specs := make([]brokersim.BrokerSpec, len(ids))
	for i, id := range ids {
		specs[i] = goldenSpec(id)
	}
	sim, err := brokersim.Start(testCtx(t), brokersim.Options{
		ZooKeeperServers: []string{env.server.Addr()}, Chroot: chroot, Brokers: specs,
		SessionTimeout: 4 * time.Second, ControlledShutdownBackoff: 20 * time.Millisecond,
		RequestTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("start brokers: %v", err)
	}
	t.Cleanup(sim.Close)
	g.sim = sim
	g.log = newRequestLog(g.brokerOf)
	g.admin = zkadmin.NewAdmin(g.obs, zkadmin.AdminOptions{})
	g.ctl = startNode(t, chroot, nodeOpts{id: goldenControllerID, dial: g.log.dial})
	waitFor(t, "controller ready", func() bool { return g.ctl.c.Status().Ready })
}

// brokerOf maps a dialled address to the simulated broker listening there.
func (g *goldenScenario) brokerOf(addr string) int32 {
	for _, b := range g.sim.Brokers() {
		if b.Addr() == addr {
			return b.ID()
		}
	}
	return -1
}

func (g *goldenScenario) createTopic(t *testing.T, d *datadriven.TestData) string {
	name := d.CmdArgs[0].Key
	var spec string
	d.ScanArgs(t, "assignment", &spec)
	parts := map[int32][]int32{}
	for i, list := range strings.Split(spec, "|") {
		replicas, err := parseIDList(list)
		if err != nil {
			d.Fatalf(t, "assignment %q: %v", spec, err)
		}
		parts[int32(i)] = replicas
	}
	createTopic(t, g.obs, name, parts)
	return "ok"
}

func (g *goldenScenario) brokerAction(t *testing.T, d *datadriven.TestData) string {
	for _, id := range goldenIDs(t, d, 0) {
		b := g.sim.Broker(id)
		if b == nil {
			d.Fatalf(t, "no broker %d", id)
		}
		var err error
		switch d.Cmd {
		case "kill-broker":
			b.Kill()
		case "restart-broker":
			err = b.Restart(testCtx(t))
		case "controlled-shutdown":
			// The broker stops once the controller's answers to it are
			// delivered, so that the StopReplica of its followers is
			// recorded every time, not only when it wins the race.
			err = b.ShutdownWhen(testCtx(t), func(ctx context.Context) error { return g.controlRequestsDrained(ctx, t) })
		case "lag", "unlag":
			b.SetLagging(d.Cmd == "lag")
		}
		if err != nil {
			return fmt.Sprintf("broker %d: error: %v", id, err)
		}
	}
	return "ok"
}

// elect sends ElectLeaders v2 for the partitions named.
func (g *goldenScenario) elect(t *testing.T, d *datadriven.TestData) string {
	req := kmsg.NewPtrElectLeadersRequest()
	req.Version = 2
	switch d.CmdArgs[0].Key {
	case "preferred":
		req.ElectionType = 0
	case "unclean":
		req.ElectionType = 1
	default:
		d.Fatalf(t, "election type %q: want preferred or unclean", d.CmdArgs[0].Key)
	}
	byTopic := map[string][]int32{}
	var order []string
	for _, a := range d.CmdArgs[1:] {
		tp := parseGoldenPartition(t, d, a.Key)
		if _, ok := byTopic[tp.Topic]; !ok {
			order = append(order, tp.Topic)
		}
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
	}
	for _, topic := range order {
		req.Topics = append(req.Topics, kmsg.ElectLeadersRequestTopic{Topic: topic, Partitions: byTopic[topic]})
	}
	resp, err := g.ctl.c.ElectLeaders(testCtx(t), req)
	if err != nil {
		return "error: " + err.Error()
	}
	var lines []string
	if resp.ErrorCode != 0 {
		lines = append(lines, "error: "+errorName(resp.ErrorCode))
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			lines = append(lines, fmt.Sprintf("%s-%d: %s", rt.Topic, rp.Partition, errorName(rp.ErrorCode)))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// setConfig: set-config topic <name> key=value ...
func (g *goldenScenario) setConfig(t *testing.T, d *datadriven.TestData) string {
	if len(d.CmdArgs) < 3 || d.CmdArgs[0].Key != "topic" {
		d.Fatalf(t, "want set-config topic <name> key=value ...")
	}
	set := map[string]string{}
	for _, a := range d.CmdArgs[2:] {
		set[a.Key] = a.SingleVal(t)
	}
	_, err := g.admin.AlterConfigs(testCtx(t), zkadmin.ConfigAlteration{
		EntityType: znodes.EntityTopics, EntityName: d.CmdArgs[1].Key, Set: set,
	})
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

// reassign: reassign <topic-partition> <replicas>|cancel ...
func (g *goldenScenario) reassign(t *testing.T, d *datadriven.TestData) string {
	if len(d.CmdArgs)%2 != 0 {
		d.Fatalf(t, "want pairs of <topic-partition> <replicas>|cancel")
	}
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	req.TimeoutMillis = 30000
	for i := 0; i < len(d.CmdArgs); i += 2 {
		tp := parseGoldenPartition(t, d, d.CmdArgs[i].Key)
		p := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
		p.Partition = tp.Partition
		if target := d.CmdArgs[i+1].Key; target != "cancel" {
			replicas, err := parseIDList(target)
			if err != nil {
				d.Fatalf(t, "replicas %q: %v", target, err)
			}
			p.Replicas = replicas
		}
		req.Topics = append(req.Topics, kmsg.AlterPartitionAssignmentsRequestTopic{
			Topic: tp.Topic, Partitions: []kmsg.AlterPartitionAssignmentsRequestTopicPartition{p}})
	}
	resp, err := g.ctl.c.AlterPartitionReassignments(testCtx(t), req)
	if err != nil {
		return "error: " + err.Error()
	}
	if resp.ErrorCode != 0 {
		return "error: " + errorName(resp.ErrorCode)
	}
	var lines []string
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			lines = append(lines, fmt.Sprintf("%s-%d: %s", rt.Topic, rp.Partition, errorName(rp.ErrorCode)))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func (g *goldenScenario) show(t *testing.T, d *datadriven.TestData) string {
	if len(d.CmdArgs) == 0 {
		d.Fatalf(t, "show what?")
	}
	switch d.CmdArgs[0].Key {
	case "partitions":
		return strings.Join(g.partitionLines(t), "\n")
	case "requests":
		return g.showRequests(t, d)
	}
	d.Fatalf(t, "show %q: want partitions or requests", d.CmdArgs[0].Key)
	return ""
}

// showRequests prints the summaries for the brokers named (all with any,
// each under a header, when none is named), then forgets every broker's,
// so the next show starts from here.
func (g *goldenScenario) showRequests(t *testing.T, d *datadriven.TestData) string {
	if errs := g.log.decodeErrors(); len(errs) > 0 {
		d.Fatalf(t, "undecodable requests: %v", errs)
	}
	var gone []int32
	args := d.CmdArgs[1:]
	if n := len(args); n > 0 && args[n-1].Key == "gone" {
		var err error
		if gone, err = parseIDList(strings.Join(args[n-1].Vals, ",")); err != nil {
			d.Fatalf(t, "gone=%v: %v", args[n-1].Vals, err)
		}
		d.CmdArgs = d.CmdArgs[:len(d.CmdArgs)-1]
	}
	named := goldenIDs(t, d, 1)
	all := g.log.take()
	for _, id := range gone {
		all[id] = slices.DeleteFunc(all[id], func(l string) bool { return strings.HasPrefix(l, "UpdateMetadata") })
	}
	if len(named) == 1 {
		return orNone(all[named[0]])
	}
	if len(named) == 0 {
		named = slices.Sorted(maps.Keys(all))
	}
	var out []string
	for _, id := range named {
		out = append(out, fmt.Sprintf("broker %d:", id))
		for _, l := range orNoneLines(all[id]) {
			out = append(out, "  "+l)
		}
	}
	return orNone(out)
}

func orNoneLines(lines []string) []string {
	if len(lines) == 0 {
		return []string{"(none)"}
	}
	return lines
}

func orNone(lines []string) string { return strings.Join(orNoneLines(lines), "\n") }

func errorName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	if err, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
		return err.Message
	}
	return fmt.Sprintf("error code %d", code)
}

// goldenIDs parses the broker ids among the arguments from index from.
func goldenIDs(t *testing.T, d *datadriven.TestData, from int) []int32 {
	var out []int32
	for _, a := range d.CmdArgs[from:] {
		v, err := strconv.ParseInt(a.Key, 10, 32)
		if err != nil {
			d.Fatalf(t, "broker id %q: %v", a.Key, err)
		}
		out = append(out, int32(v))
	}
	return out
}

// parseIDList parses "1,2,3".
func parseIDList(s string) ([]int32, error) {
	var out []int32
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, err
		}
		out = append(out, int32(v))
	}
	return out, nil
}

func parseGoldenPartition(t *testing.T, d *datadriven.TestData, s string) TopicPartition {
	i := strings.LastIndexByte(s, '-')
	p, err := strconv.ParseInt(s[i+1:], 10, 32)
	if i <= 0 || err != nil {
		d.Fatalf(t, "partition %q: want topic-partition", s)
	}
	return TopicPartition{Topic: s[:i], Partition: int32(p)}
}
