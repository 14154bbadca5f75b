package kafkaconn

import (
	"bytes"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAppendRequestMatchesKmsg: the frame is kmsg's RequestFormatter's for
// every key and version but ControlledShutdown v0.
func TestAppendRequestMatchesKmsg(t *testing.T) {
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kz"))
	n := 0
	for key := int16(0); key <= kmsg.MaxKey; key++ {
		req := kmsg.RequestForKey(key)
		if req == nil {
			continue
		}
		for v := int16(0); v <= req.MaxVersion(); v++ {
			if key == kmsg.ControlledShutdown.Int16() && v == 0 {
				continue
			}
			req.SetVersion(v)
			want := f.AppendRequest(nil, req, 42)
			got := AppendRequest([]byte("prefix"), req, 42, "kz")
			if !bytes.Equal(got[len("prefix"):], want) {
				t.Errorf("%s v%d: frame differs from kmsg's", kmsg.NameForKey(key), v)
			}
			n++
		}
	}
	if n < 100 {
		t.Errorf("compared only %d frames", n)
	}
}
