package kafkaconn

import (
	"bytes"
	"testing"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzReadResponse feeds arbitrary bytes to the response reader as the
// answer to a flexible, a non-flexible and an ApiVersions request: it
// must return a response or an error, never panic or over-allocate.
func FuzzReadResponse(f *testing.F) {
	av := kmsg.NewPtrApiVersionsResponse()
	av.Version = 3
	av.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 3, MaxVersion: 12}}
	f.Add(frame(kbin.AppendInt32(nil, 1), av.AppendTo(nil)))
	sr := kmsg.NewPtrStopReplicaResponse()
	sr.Version = 3
	f.Add(frame(kbin.AppendInt32(nil, 1), []byte{0}, sr.AppendTo(nil)))
	f.Add(frame(kbin.AppendInt32(nil, 1), []byte{0, 35}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	reqs := func() []kmsg.Request {
		a := kmsg.NewPtrApiVersionsRequest()
		a.Version = 3
		s := kmsg.NewPtrStopReplicaRequest()
		s.Version = 3
		m := kmsg.NewPtrMetadataRequest()
		m.Version = 5
		return []kmsg.Request{a, s, m}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, req := range reqs() {
			resp, err := ReadResponse(bytes.NewReader(data), req, 1, 1<<16)
			if (resp == nil) == (err == nil) {
				t.Fatalf("%s: response %v and error %v", kmsg.NameForKey(req.Key()), resp, err)
			}
			if err == nil && resp.GetVersion() != req.GetVersion() {
				t.Fatalf("%s: response v%d for request v%d", kmsg.NameForKey(req.Key()), resp.GetVersion(), req.GetVersion())
			}
		}
	})
}
