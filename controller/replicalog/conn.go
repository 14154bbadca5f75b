package replicalog

import (
	"net"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
)

// maxResponseSize bounds one response frame. A GetReplicaLogInfo answer
// for 2,000 partitions is about 40 KB; ListOffsets answers are of the
// same order.
const maxResponseSize = 16 << 20

// newConn wraps a dialled connection to a broker. One request at a time
// is enough: the prober asks, waits, and asks again.
func newConn(nc net.Conn, addr string, o Options) *kafkaconn.Conn {
	return kafkaconn.New(nc, addr, kafkaconn.Config{
		ClientID:        o.ClientID,
		Timeout:         o.RequestTimeout,
		MaxResponse:     maxResponseSize,
		APIName:         apiName,
		SoftwareName:    "kzadmin-replicalog",
		SoftwareVersion: "1",
	})
}

// apiName names a key for errors; kmsg does not know ours.
func apiName(key int16) string {
	if key == GetReplicaLogInfoKey {
		return "GetReplicaLogInfo"
	}
	return kmsg.NameForKey(key)
}
