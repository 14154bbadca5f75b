package cli

import (
	"encoding/json"
	"testing"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// TestLogDirsDocument: kafka-log-dirs' document, topics filtered, an
// offline directory named by Kafka's exception class, empty lists as [].
func TestLogDirsDocument(t *testing.T) {
	doc := logDirsDocument([]backend.BrokerLogDirs{
		{Broker: 1, Dirs: []backend.LogDir{
			{Dir: "/d1", Replicas: []backend.LogDirReplica{{Topic: "a", Partition: 0, Size: 10}, {Topic: "b", Partition: 2, Size: 5, OffsetLag: 1, IsFuture: true}}},
			{Dir: "/d2", ErrorCode: 56},
		}},
		{Broker: 2},
	}, []string{"a"})
	got, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"brokers":[{"broker":1,"logDirs":[` +
		`{"logDir":"/d1","error":null,"partitions":[{"partition":"a-0","size":10,"offsetLag":0,"isFuture":false}]},` +
		`{"logDir":"/d2","error":"org.apache.kafka.common.errors.KafkaStorageException","partitions":[]}]},` +
		`{"broker":2,"logDirs":[]}]}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	all := logDirsDocument([]backend.BrokerLogDirs{{Broker: 1, Dirs: []backend.LogDir{{Dir: "/d1",
		Replicas: []backend.LogDirReplica{{Topic: "a"}, {Topic: "b"}}}}}}, nil)
	if n := len(all.Brokers[0].LogDirs[0].Partitions); n != 2 {
		t.Fatalf("no topic list kept %d partitions, want 2", n)
	}
}
