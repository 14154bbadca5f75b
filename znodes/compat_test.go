package znodes_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// TestDecodeErrorNamesConcreteZnode: decoders given the path's variable
// parts name the concrete znode; the others name the fixed path or, for
// sequential children with no name given, the path template.
func TestDecodeErrorNamesConcreteZnode(t *testing.T) {
	bad := []byte(`[]`)
	cases := []struct {
		err  error
		want string
	}{
		{second(znodes.DecodeBrokerRegistration(1001, bad)), "/brokers/ids/1001"},
		{second(znodes.DecodeTopicAssignment("a.b", bad)), "/brokers/topics/a.b"},
		{second(znodes.DecodePartitionState("a.b", 12, bad)), "/brokers/topics/a.b/partitions/12/state"},
		{second(znodes.DecodeEntityConfig("users", "alice/clients/app", []byte(`{`))), "/config/users/alice/clients/app"},
		{second(znodes.DecodeEntityConfig("brokers", "<default>", []byte(`{`))), "/config/brokers/<default>"},
		{second(znodes.DecodeConfigChangeNotification("config_change_0000000042", bad)), "/config/changes/config_change_0000000042"},
		{second(znodes.DecodeConfigChangeNotification("", bad)), "/config/changes/config_change_<seq>"},
		{second(znodes.DecodeIsrChangeNotification("", bad)), "/isr_change_notification/isr_change_<seq>"},
		{second(znodes.DecodeLogDirEventNotification("log_dir_event_0000000001", bad)), "/log_dir_event_notification/log_dir_event_0000000001"},
		{second(znodes.DecodeClusterID(bad)), "/cluster/id"},
		{second(znodes.DecodeControllerRegistration(bad)), "/controller"},
		{second(znodes.DecodeControllerEpoch(bad)), "/controller_epoch"},
		{second(znodes.DecodeReassignPartitions(bad)), "/admin/reassign_partitions"},
		{second(znodes.DecodePreferredReplicaElection(bad)), "/admin/preferred_replica_election"},
		{second(znodes.DecodeFinalizedFeatures(bad)), "/feature"},
		{second(znodes.DecodeProducerIDBlock(bad)), "/latest_producer_id_block"},
		{second(znodes.DecodeMigrationState(bad)), "/migration"},
		{second(znodes.DecodeResourceACLs("/kafka-acl-extended/prefixed/Topic/a-", bad)), "/kafka-acl-extended/prefixed/Topic/a-"},
		{second(znodes.DecodeExtendedACLChange(bad)), "/kafka-acl-extended-changes/acl_changes_<seq>"},
		{second(znodes.DecodeLiteralACLChange([]byte("x"))), "/kafka-acl-changes/acl_changes_<seq>"},
	}
	for _, c := range cases {
		var de *znodes.DecodeError
		if !errors.As(c.err, &de) {
			t.Errorf("want *DecodeError for %s, got %v", c.want, c.err)
			continue
		}
		if de.Znode != c.want || !strings.HasPrefix(c.err.Error(), "znode "+c.want+": ") {
			t.Errorf("znode = %q (%v), want %q", de.Znode, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestNullVersusEmptyData pins reference §0.3: containers and markers are
// null; a reader treats null as absent. Which decoders accept which form.
func TestNullVersusEmptyData(t *testing.T) {
	type outcome struct{ nullOK, emptyOK bool }
	want := map[string]outcome{
		"config":     {true, true},   // no overrides, as Kafka
		"acls":       {true, true},   // no ACLs, as Kafka
		"pid":        {false, false}, // null = no block (ErrNoData); empty breaks Kafka too
		"topic":      {false, false},
		"state":      {false, false},
		"broker":     {false, false},
		"cluster":    {false, false},
		"epoch":      {false, false},
		"feature":    {false, false},
		"change":     {false, false},
		"controller": {false, false},
	}
	dec := decoders()
	for name, w := range want {
		if got := dec[name](nil) == nil; got != w.nullOK {
			t.Errorf("%s: decode(null) ok=%v, want %v", name, got, w.nullOK)
		}
		if got := dec[name]([]byte{}) == nil; got != w.emptyOK {
			t.Errorf("%s: decode(empty) ok=%v, want %v", name, got, w.emptyOK)
		}
	}
	if znodes.DeleteTopicMarkerData() != nil {
		t.Error("markers are created with null data")
	}
}

// TestDecodersSurviveTruncationAndMutation is a deterministic mini-fuzz run
// by every `go test`: every prefix of every golden payload, and every
// single-byte mutation to a few interesting bytes, must decode to a value
// or a *DecodeError and never panic.
func TestDecodersSurviveTruncationAndMutation(t *testing.T) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var payloads [][]byte
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		payloads = append(payloads, b)
	}
	dec := decoders()
	check := func(name string, in []byte) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s panicked on %q: %v", name, in, r)
			}
		}()
		if err := dec[name](in); err != nil {
			var de *znodes.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%s: %q: error %T is not a *DecodeError", name, in, err)
			}
		}
	}
	replacements := []byte{'"', '{', '}', '[', ']', ',', ':', '0', '-', '.', 'e', ' ', 0xff, 0}
	for _, p := range payloads {
		for name := range dec {
			for i := 0; i <= len(p); i++ {
				check(name, p[:i])
			}
			for i := 0; i < len(p); i += 3 {
				for _, r := range replacements {
					m := bytes.Clone(p)
					m[i] = r
					check(name, m)
				}
			}
		}
	}
}

// TestKafkaTestExamples: exact strings that appear in Kafka's own ZK tests
// (quoted by the reference) are what Encode produces.
func TestKafkaTestExamples(t *testing.T) {
	r := znodes.ReassignPartitions{Partitions: []znodes.ReassignmentEntry{{Topic: "foo", Partition: 0, Replicas: []int32{1, 2}}}}
	if got, _ := r.Encode(); string(got) != `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]}]}` {
		t.Errorf("reassign: %s", got)
	}
	isr := znodes.IsrChangeNotification{Partitions: []znodes.TopicPartition{{"topic-a", 0}, {"topic-b", 0}}}
	if got, _ := isr.Encode(); string(got) != `{"version":1,"partitions":[{"topic":"topic-a","partition":0},{"topic":"topic-b","partition":0}]}` {
		t.Errorf("isr change: %s", got)
	}
	logDir := znodes.LogDirEventNotification{BrokerID: 3, Event: znodes.LogDirFailureEvent}
	if got, _ := logDir.Encode(); string(got) != `{"version":1,"broker":3,"event":1}` {
		t.Errorf("log dir event: %s", got)
	}
}

// TestWritersEmitCompactJSON: no whitespace between tokens, no trailing
// newline, for every golden payload re-encoded.
func TestWritersEmitCompactJSON(t *testing.T) {
	for _, c := range goldenCases(t) {
		data, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.decode(data)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := v.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasSuffix(enc, []byte("\n")) || hasWhitespaceOutsideStrings(enc) {
			t.Errorf("%s: not compact: %q", c.file, enc)
		}
	}
}

func hasWhitespaceOutsideStrings(b []byte) bool {
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			return true
		}
	}
	return false
}

// TestBrokerVersionMatrix: which fields each registration version needs.
func TestBrokerVersionMatrix(t *testing.T) {
	cases := []struct {
		in      string
		ok      bool
		comment string
	}{
		{`{"version":1,"host":"h","port":1,"jmx_port":-1}`, true, "v1 needs host, port, jmx_port"},
		{`{"version":1,"host":"h","port":1,"jmx_port":-1,"endpoints":"ignored"}`, true, "v1 ignores endpoints"},
		{`{"version":2,"jmx_port":-1,"endpoints":["PLAINTEXT://h:1"]}`, true, "v2 needs only endpoints"},
		{`{"version":2,"jmx_port":-1,"endpoints":["INTERNAL://h:1"]}`, false, "v2 without a map uses the default map"},
		{`{"version":3,"jmx_port":-1,"endpoints":[],"rack":"r"}`, true, "v3 adds rack"},
		{`{"version":4,"jmx_port":-1,"endpoints":["INTERNAL://h:1"],"listener_security_protocol_map":{"INTERNAL":"SSL"}}`, true, "v4 adds the map"},
		{`{"version":5,"jmx_port":-1,"endpoints":[],"features":{}}`, true, "v5 adds features"},
		{`{"version":6,"jmx_port":-1,"endpoints":[]}`, true, "later versions read like v5"},
		{`{"version":-1,"jmx_port":-1,"endpoints":[]}`, false, "version must be >= 1"},
	}
	for _, c := range cases {
		_, err := znodes.DecodeBrokerRegistration(1, []byte(c.in))
		if (err == nil) != c.ok {
			t.Errorf("%s: %s: err=%v, want ok=%v", c.comment, c.in, err, c.ok)
		}
	}
}

// TestUnknownFieldsPreservedAcrossRewrites: each rewritable payload keeps a
// field written by a newer writer through decode, modify, encode.
func TestUnknownFieldsPreservedAcrossRewrites(t *testing.T) {
	const extra = `"x-new":{"b":[1,2],"a":"é<>"}`
	check := func(name string, enc []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Contains(enc, []byte(extra)) {
			t.Errorf("%s: lost unknown field: %s", name, enc)
		}
	}
	a, err := znodes.DecodeTopicAssignment("t", []byte(`{"version":3,"partitions":{"0":[1]},`+extra+`}`))
	if err != nil {
		t.Fatal(err)
	}
	a.Partitions[1] = []int32{2}
	enc, err := a.Encode()
	check("topic", enc, err)

	s, err := znodes.DecodePartitionState("t", 0, []byte(`{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1,`+extra+`}`))
	if err != nil {
		t.Fatal(err)
	}
	s.LeaderEpoch++
	enc, err = s.Encode()
	check("state", enc, err)

	c, err := znodes.DecodeEntityConfig("topics", "t", []byte(`{"version":1,"config":{},`+extra+`}`))
	if err != nil {
		t.Fatal(err)
	}
	c.Config = map[string]string{"retention.ms": "1"}
	enc, err = c.Encode()
	check("config", enc, err)

	b, err := znodes.DecodeBrokerRegistration(1, []byte(`{"version":5,"jmx_port":-1,"endpoints":[],`+extra+`}`))
	if err != nil {
		t.Fatal(err)
	}
	b.Rack = ptr("r2")
	enc, err = b.Encode()
	check("broker", enc, err)

	f, err := znodes.DecodeFinalizedFeatures([]byte(`{"features":{},"version":1,"status":0,` + extra + `}`))
	if err != nil {
		t.Fatal(err)
	}
	f.Version, f.Status = 2, znodes.FeatureEnabled
	enc, err = f.Encode()
	check("feature", enc, err)
}
