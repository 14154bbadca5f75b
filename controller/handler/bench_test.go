package handler

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/wire"
)

// benchHandlers serves a view of n topics of 3 partitions (RF 3).
func benchHandlers(b *testing.B, n int) *Handlers {
	v := baseView()
	topics := make([]*controller.TopicView, 0, n)
	for i := 0; i < n; i++ {
		topics = append(topics, onlineTopic(fmt.Sprintf("topic-%05d", i), byte(i),
			[]int32{1, 2, 3}, []int32{2, 3, 1}, []int32{3, 1, 2}))
	}
	views := NewViews(withTopics(v, topics...))
	h, err := New(Options{Cluster: views, Admin: newFakeAdmin(views), Config: config.Default()})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// benchMetadata times Metadata v12 through the handler and the response
// encoding (what the server does besides socket I/O).
func benchMetadata(b *testing.B, topics int, names ...string) {
	h := benchHandlers(b, topics)
	r := mdReq(12, names...)
	if names == nil {
		r = mdAll(12)
	}
	req := &wire.Request{Key: 3, Version: 12, Body: r, Principal: wire.AnonymousPrincipal()}
	ctx := context.Background()
	var buf []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp := h.metadata(ctx, req, r)
		buf = resp.(*kmsg.MetadataResponse).AppendTo(buf[:0])
	}
}

func BenchmarkMetadataOneTopicOf10k(b *testing.B) { benchMetadata(b, 10000, "topic-04242") }
func BenchmarkMetadataAll10kTopics(b *testing.B)  { benchMetadata(b, 10000) }
