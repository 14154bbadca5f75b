package wirebackend_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/wirebackend"
)

// requestCounter counts the requests of one key written to any node.
type requestCounter struct {
	key int16
	n   atomic.Int64
}

func (c *requestCounter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key == c.key && err == nil {
		c.n.Add(1)
	}
}

// createTopics creates topics with kadm, as another client of the cluster
// would: one CreateTopics per partition count and 100 topics.
func (c *cluster) createTopics(t testing.TB, counts map[string]int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.d.KafkaAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	byCount := map[int32][]string{}
	for name, n := range counts {
		byCount[n] = append(byCount[n], name)
	}
	adm.SetTimeoutMillis(60000)
	for n, names := range byCount {
		for len(names) > 0 {
			batch := names[:min(100, len(names))]
			names = names[len(batch):]
			res, err := adm.CreateTopics(ctx, n, 2, nil, batch...)
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Error(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Describing many topics with small pieces and pages gives what one
// request per topic list gives, and what ZooKeeper holds.
func TestDescribeSplitsAndPages(t *testing.T) {
	c := dev
	counts := map[string]int32{"pg-wide": 25}
	total := 25
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("pg-%02d", i)
		counts[name] = int32(i%7 + 1)
		total += i%7 + 1
		names = append(names, name)
	}
	c.createTopics(t, counts)
	c.settled(t, append(names, "pg-wide")...)

	dtp := &requestCounter{key: 75}
	paged := wirebackend.Options{TopicsPerRequest: 4, PartitionsPerPage: 3, ClientOptions: []kgo.Opt{kgo.WithHooks(dtp)}}
	for _, args := range [][]string{
		{"topics", "describe", "--topic", "pg-.*"},
		{"topics", "describe", "--topic", "pg-.*", "-o", "json"},
		{"topics", "list", "--topic", "pg-.*"},
	} {
		before := dtp.n.Load()
		p := want(t, c.run(t, paged, args...), 0)
		d := want(t, c.wire(t, args...), 0)
		z := want(t, c.zook(t, args...), 0)
		if p.out != z.out || d.out != z.out {
			t.Errorf("%s:\npaged:\n%s\nunpaged:\n%s\n--zookeeper:\n%s", strings.Join(args, " "), p.out, d.out, z.out)
		}
		if n := dtp.n.Load() - before; n < int64(total/3) {
			t.Errorf("%s: %d DescribeTopicPartitions requests for %d partitions at 3 a page", strings.Join(args, " "), n, total)
		}
	}
	if !strings.Contains(want(t, c.run(t, paged, "topics", "describe", "--topic", "pg-wide"), 0).out,
		"Topic: pg-wide\tTopicId: ") {
		t.Error("pg-wide not described")
	}

	// A controller without DescribeTopicPartitions (Kafka's) is described
	// with Metadata, split the same way.
	noDTP := kversion.Stable()
	noDTP.SetMaxKeyVersion(75, -1)
	dtp.n.Store(0)
	md := &requestCounter{key: 3}
	old := wirebackend.Options{TopicsPerRequest: 4, ClientOptions: []kgo.Opt{kgo.MaxVersions(noDTP), kgo.WithHooks(dtp, md)}}
	args := []string{"topics", "describe", "--topic", "pg-.*"}
	if m, z := want(t, c.run(t, old, args...), 0), want(t, c.zook(t, args...), 0); m.out != z.out {
		t.Errorf("Metadata fallback:\n%s\n--zookeeper:\n%s", m.out, z.out)
	}
	if dtp.n.Load() != 0 || md.n.Load() < 41/4 {
		t.Errorf("%d DescribeTopicPartitions and %d Metadata requests", dtp.n.Load(), md.n.Load())
	}
}
