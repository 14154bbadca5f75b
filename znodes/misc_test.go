package znodes_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestUUIDText(t *testing.T) {
	u := mustUUID(t, "qSVG0ukwQZqMS74sw61E-w")
	if u.String() != "qSVG0ukwQZqMS74sw61E-w" || u.IsZero() {
		t.Fatalf("round trip: %s", u)
	}
	padded, err := znodes.ParseUUID("qSVG0ukwQZqMS74sw61E-w==")
	if err != nil || padded != u {
		t.Fatalf("padded form: %v, %v", padded, err)
	}
	if (znodes.UUID{}).String() != "AAAAAAAAAAAAAAAAAAAAAA" || !(znodes.UUID{}).IsZero() {
		t.Fatal("zero uuid text")
	}
	for _, bad := range []string{"", "qSVG0ukwQZqMS74sw61E-", "qSVG0ukwQZqMS74sw61E-w=", "qSVG0ukwQZqMS74sw61E-wAA",
		"qSVG0ukwQZqMS74sw61E/w", "qSVG0ukwQZqMS74sw61E\nw", "qSVG0ukwQZqMS74sw61E-w=x"} {
		if _, err := znodes.ParseUUID(bad); err == nil {
			t.Errorf("ParseUUID(%q) should fail", bad)
		}
	}
}

// stepReader yields the given chunks, one per Read call, then zeros.
type stepReader struct{ chunks [][]byte }

func (r *stepReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return copy(p, make([]byte, len(p))), nil
	}
	n := copy(p, r.chunks[0])
	r.chunks = r.chunks[1:]
	return n, nil
}

func TestNewTopicIDSkipsReservedIDs(t *testing.T) {
	dash := make([]byte, 16)
	dash[0] = 0xf8 // base64 text starts with '-'
	good := bytes.Repeat([]byte{0x11}, 16)
	r := &stepReader{chunks: [][]byte{dash, good}}
	u, err := znodes.NewTopicID(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(u.String(), "-") || u.IsZero() {
		t.Fatalf("reserved id returned: %s", u)
	}
	if u[6]>>4 != 4 || u[8]>>6 != 2 {
		t.Fatalf("not a version-4 UUID: %x", u[:])
	}
	if _, err := znodes.NewTopicID(bytes.NewReader(nil)); err == nil {
		t.Fatal("an exhausted reader must fail")
	}
	id, err := znodes.NewClusterID(bytes.NewReader(good))
	if err != nil || len(id) != 22 {
		t.Fatalf("NewClusterID = %q, %v", id, err)
	}
}

func TestSanitizeEntityName(t *testing.T) {
	cases := map[string]string{
		"alice":           "alice",
		"CN=alice,O=Acme": "CN%3Dalice%2CO%3DAcme",
		"my app":          "my%20app",
		"a*b":             "a%2Ab",
		"a+b":             "a%2Bb",
		"<default>":       "%3Cdefault%3E",
		"é":               "%C3%A9",
		"a.b-c_d~":        "a.b-c_d%7E",
		"":                "",
	}
	for in, want := range cases {
		got := znodes.SanitizeEntityName(in)
		if got != want {
			t.Errorf("SanitizeEntityName(%q) = %q, want %q", in, got, want)
		}
		back, err := znodes.DesanitizeEntityName(got)
		if err != nil || back != in {
			t.Errorf("DesanitizeEntityName(%q) = %q, %v; want %q", got, back, err, in)
		}
	}
	if s, err := znodes.DesanitizeEntityName("a+b"); err != nil || s != "a b" {
		t.Errorf("'+' decodes to a space like URLDecoder: %q, %v", s, err)
	}
	if _, err := znodes.DesanitizeEntityName("a%zz"); err == nil {
		t.Error("bad escape must fail")
	}
}

func TestControllerLegacyForms(t *testing.T) {
	c, err := znodes.DecodeControllerRegistration([]byte("3"))
	want := znodes.ControllerRegistration{Version: 0, BrokerID: 3, KRaftControllerEpoch: -1}
	if err != nil || c != want {
		t.Fatalf("bare id: %+v, %v", c, err)
	}
	c, err = znodes.DecodeControllerRegistration([]byte(`{"version":1,"brokerid":2}`))
	want = znodes.ControllerRegistration{Version: 1, BrokerID: 2, KRaftControllerEpoch: -1}
	if err != nil || c != want {
		t.Fatalf("v1 without timestamp: %+v, %v", c, err)
	}
	c, err = znodes.DecodeControllerRegistration([]byte(`{"brokerid":2,"unknown":{"x":1}}`))
	if err != nil || c.BrokerID != 2 {
		t.Fatalf("unknown fields are ignored: %+v, %v", c, err)
	}
}

func TestNewControllerRegistration(t *testing.T) {
	c := znodes.NewControllerRegistration(1, time.UnixMilli(1700000000123))
	enc, err := c.Encode()
	if err != nil || string(enc) != `{"version":2,"brokerid":1,"timestamp":"1700000000123","kraftControllerEpoch":-1}` {
		t.Fatalf("got %s, %v", enc, err)
	}
	if znodes.MillisString(time.UnixMilli(0)) != "0" {
		t.Fatal("MillisString")
	}
}

func TestControllerEpochForms(t *testing.T) {
	for in, want := range map[string]int32{"0": 0, "1": 1, "2147483647": 2147483647, "+3": 3, "-1": -1, "0007": 7} {
		got, err := znodes.DecodeControllerEpoch([]byte(in))
		if err != nil || got != want {
			t.Errorf("DecodeControllerEpoch(%q) = %d, %v", in, got, err)
		}
	}
	if got := string(znodes.EncodeControllerEpoch(0)); got != "0" {
		t.Errorf("EncodeControllerEpoch(0) = %q", got)
	}
	if got := string(znodes.EncodeControllerEpoch(-1)); got != "-1" {
		t.Errorf("EncodeControllerEpoch(-1) = %q", got)
	}
}

func TestBrokerSeqIDAndMarkers(t *testing.T) {
	if got := znodes.GeneratedBrokerID(1, znodes.DefaultReservedBrokerMaxID); got != 1001 {
		t.Fatalf("first generated id = %d, want 1001", got)
	}
	if d := znodes.BrokerSeqIDData(); d == nil || len(d) != 0 {
		t.Fatalf("seqid data must be empty but not null: %#v", d)
	}
	if d := znodes.DeleteTopicMarkerData(); d != nil {
		t.Fatalf("delete marker must be null data: %#v", d)
	}
}

func TestNextProducerIDBlock(t *testing.T) {
	first, err := znodes.NextProducerIDBlock(nil, 2)
	if err != nil || first != (znodes.ProducerIDBlock{Version: 1, BrokerID: 2, Start: 0, End: 999}) {
		t.Fatalf("first block = %+v, %v", first, err)
	}
	enc, _ := first.Encode()
	if string(enc) != `{"version":1,"broker":2,"block_start":"0","block_end":"999"}` {
		t.Fatalf("encode: %s", enc)
	}
	next, err := znodes.NextProducerIDBlock(enc, 3)
	if err != nil || next != (znodes.ProducerIDBlock{Version: 1, BrokerID: 3, Start: 1000, End: 1999}) {
		t.Fatalf("second block = %+v, %v", next, err)
	}
	if next.Size() != znodes.ProducerIDBlockSize {
		t.Fatalf("size %d", next.Size())
	}
	if _, err := znodes.NextProducerIDBlock([]byte{}, 1); !errors.Is(err, znodes.ErrNoData) {
		t.Fatalf("a zero-length payload must fail like in Kafka, got %v", err)
	}
	last := znodes.ProducerIDBlock{BrokerID: 1, Start: math.MaxInt64 - 999, End: math.MaxInt64}
	data, _ := last.Encode()
	if _, err := znodes.NextProducerIDBlock(data, 1); err == nil || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("exhaustion: %v", err)
	}
	// Kafka reads the bounds with Long.parseLong: a sign and leading zeros are fine.
	b, err := znodes.DecodeProducerIDBlock([]byte(`{"broker":1,"block_start":"+0100","block_end":"1099"}`))
	if err != nil || b.Start != 100 || b.End != 1099 || b.Version != 0 {
		t.Fatalf("lenient long: %+v, %v", b, err)
	}
}

func TestReassignPartitionsByPartition(t *testing.T) {
	r := znodes.ReassignPartitions{Partitions: []znodes.ReassignmentEntry{
		{Topic: "a", Partition: 0, Replicas: []int32{1}},
		{Topic: "a", Partition: 1, Replicas: []int32{2}},
		{Topic: "a", Partition: 0, Replicas: []int32{3}},
	}}
	want := map[znodes.TopicPartition][]int32{{"a", 0}: {3}, {"a", 1}: {2}}
	if got := r.ByPartition(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ByPartition = %v", got)
	}
}

func TestHandWrittenDecodersIgnoreUnknownKeys(t *testing.T) {
	p, err := znodes.DecodePreferredReplicaElection([]byte(
		`{"version":1,"x":1,"partitions":[{"topic":"a","partition":0,"y":true}]}`))
	if err != nil || len(p.Partitions) != 1 {
		t.Fatalf("preferred: %+v, %v", p, err)
	}
	n, err := znodes.DecodeLogDirEventNotification("", []byte(`{"broker":4}`))
	if err != nil || n.Event != znodes.LogDirFailureEvent || n.BrokerID != 4 {
		t.Fatalf("log dir event defaults: %+v, %v", n, err)
	}
	c, err := znodes.DecodeClusterID([]byte(`{"id":"x","extra":[1]}`))
	if err != nil || c.ID != "x" {
		t.Fatalf("cluster id: %+v, %v", c, err)
	}
	m, err := znodes.DecodeMigrationState([]byte(`{"version":0,"kraft_controller_id":1,"kraft_controller_epoch":2,` +
		`"kraft_metadata_offset":9223372036854775807,"kraft_metadata_epoch":3,"extra":null}`))
	if err != nil || m.KRaftMetadataOffset != math.MaxInt64 {
		t.Fatalf("migration: %+v, %v", m, err)
	}
}

func TestConfigChangeNotificationHelpers(t *testing.T) {
	n := znodes.NewConfigChangeNotification(znodes.EntityUsers, "alice/clients/app-1")
	if n.EntityPath() != "users/alice/clients/app-1" || n.ConfigEntityPath() != "/config/users/alice/clients/app-1" {
		t.Fatalf("paths: %q %q", n.EntityPath(), n.ConfigEntityPath())
	}
	typ, name, err := znodes.SplitEntityPath("brokers/<default>")
	if err != nil || typ != "brokers" || name != "<default>" {
		t.Fatalf("SplitEntityPath = %q %q %v", typ, name, err)
	}
	if _, _, err := znodes.SplitEntityPath("/topics/a"); err == nil {
		t.Fatal("leading slash must fail")
	}
	enc, err := n.Encode()
	if err != nil || string(enc) != `{"version":2,"entity_path":"users/alice/clients/app-1"}` {
		t.Fatalf("encode: %s %v", enc, err)
	}
}

func TestLiteralACLChangeForms(t *testing.T) {
	c, err := znodes.DecodeLiteralACLChange([]byte("GROUP:a:b"))
	if err != nil || c.ResourceType != "GROUP" || c.Name != "a:b" {
		t.Fatalf("split at the first colon: %+v, %v", c, err)
	}
	c, err = znodes.DecodeLiteralACLChange([]byte("CLUSTER:"))
	if err != nil || c.Name != "" {
		t.Fatalf("empty name: %+v, %v", c, err)
	}
	if _, err := znodes.DecodeLiteralACLChange([]byte("TOPIC")); err == nil {
		t.Fatal("missing separator must fail")
	}
	acls, err := znodes.DecodeResourceACLs("/kafka-acl/Topic/a", nil)
	if err != nil || acls.ACLs != nil {
		t.Fatalf("null ACL data means no ACLs: %+v, %v", acls, err)
	}
}
