package wirebackend_test

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkDescribeManyTopics describes 1000 one-partition topics (ten
// DescribeTopicPartitions pieces of 100 topics, ten DescribeConfigs of
// 100), over the wire and, as the baseline, straight from ZooKeeper.
// Creating the topics takes a while: kzadmind creates about 15-30
// partitions a second through CreateTopics on this box.
//
//	go test ./cmd/kzadmin/wirebackend -run XXX -bench DescribeMany -benchtime 5x
func BenchmarkDescribeManyTopics(b *testing.B) {
	c := dev
	counts := map[string]int32{}
	for i := range 1000 {
		counts[fmt.Sprintf("bench-%04d", i)] = 1
	}
	start := time.Now()
	c.createTopics(b, counts)
	b.Logf("created 1000 topics (RF 2) in %v", time.Since(start))
	args := []string{"topics", "describe", "--topic", "bench-.*"}
	for _, mode := range []struct {
		name string
		run  func(testing.TB) result
	}{
		{"bootstrap-server", func(tb testing.TB) result { return c.wire(tb, args...) }},
		{"zookeeper", func(tb testing.TB) result { return c.zook(tb, args...) }},
	} {
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				if r := mode.run(b); r.code != 0 {
					b.Fatalf("exit %d: %s", r.code, r.errOut)
				}
			}
		})
	}
}
