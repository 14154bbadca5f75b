package daemon

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// startNode starts a kzadmind with node id id on the given ZooKeeper.
func startNode(ctx context.Context, t *testing.T, chroot string, id int32) *Daemon {
	t.Helper()
	conf := config.Default()
	conf.NodeID = id
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{sharedZK.Addr(t)}, Chroot: chroot}
	conf.ZooKeeper.SessionTimeout = 6 * time.Second
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = ""
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel).With().Int32("node", id).Logger()
	d, err := Start(ctx, conf, Options{}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = d.Stop(sctx)
	})
	return d
}

// metadataFrom asks one node for Metadata (no topics).
func metadataFrom(ctx context.Context, t *testing.T, addr string) *kmsg.MetadataResponse {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.(*kmsg.MetadataResponse)
}

// listedAt reports whether resp lists node id at addr.
func listedAt(resp *kmsg.MetadataResponse, id int32, addr string) bool {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	for _, b := range resp.Brokers {
		if b.NodeID == id && b.Host == host && b.Port == int32(p) {
			return true
		}
	}
	return false
}

// TestStandbyMetadataListsActiveController: a client that knows only a
// standby learns from its Metadata where the active controller is (the
// controller id and that node among the brokers, at its advertised
// endpoint), and after the active one stops, the former standby names
// and lists itself.
func TestStandbyMetadataListsActiveController(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	chroot := sharedZK.Chroot(t, "daemon")
	first := startNode(ctx, t, chroot, 4001)
	waitFor(ctx, t, "node 4001 active", func() bool { return first.Controller().Status().Active })
	second := startNode(ctx, t, chroot, 4002)
	waitFor(ctx, t, "node 4002 to know the controller", func() bool {
		resp := metadataFrom(ctx, t, second.KafkaAddr())
		return resp.ControllerID == 4001 && listedAt(resp, 4001, first.KafkaAddr())
	})
	resp := metadataFrom(ctx, t, second.KafkaAddr())
	if !listedAt(resp, 4002, second.KafkaAddr()) {
		t.Fatalf("the standby no longer lists itself: %+v", resp.Brokers)
	}

	firstAddr := first.KafkaAddr()
	sctx, scancel := context.WithTimeout(ctx, time.Minute)
	defer scancel()
	if err := first.Stop(sctx); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "node 4002 active", func() bool { return second.Controller().Status().Active })
	// Status turns active before the view is republished: wait for the
	// answer rather than expecting it on the first request.
	waitFor(ctx, t, "node 4002 to name and list only itself", func() bool {
		resp = metadataFrom(ctx, t, second.KafkaAddr())
		return resp.ControllerID == 4002 && listedAt(resp, 4002, second.KafkaAddr()) && !listedAt(resp, 4001, firstAddr)
	})
}

// waitFor polls cond until it holds or ctx ends.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if ctx.Err() != nil {
			t.Fatal(fmt.Errorf("waiting for %s: %w", what, ctx.Err()))
		}
		time.Sleep(20 * time.Millisecond) // poll interval for a condition with a deadline
	}
}

// TestControllerDirReplacesStaleEntry: an entry left by an earlier session
// of the same node.id (a restart within the session timeout) is replaced
// by this session's, so that it does not vanish when the old session
// expires.
func TestControllerDirReplacesStaleEntry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	chroot := sharedZK.Chroot(t, "daemon")
	old, cur := sharedZK.ConnectAt(t, chroot), sharedZK.ConnectAt(t, chroot)
	eps := []znodes.Endpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "h", Port: 1}}
	for _, c := range []*zkadmin.Client{old, cur} {
		d, err := newControllerDir(c, nil, 7, eps, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		if err := d.publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ok, st, err := cur.Exists(ctx, controllerDirEntry(7))
	if err != nil || !ok || st.EphemeralOwner != cur.SessionID() {
		t.Fatalf("entry exists=%v owner %x (want %x), err %v", ok, st.EphemeralOwner, cur.SessionID(), err)
	}
}
