package znodes_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// TestOptionalFieldsKafkaDoesNotRead: fields Kafka's decoders never read
// (version of most payloads, timestamps, host/port after v1, the log dir
// event type, the cluster id version) may be absent.
func TestOptionalFieldsKafkaDoesNotRead(t *testing.T) {
	dec := decoders()
	cases := map[string]string{
		"topic":      `{"partitions":{"0":[1]}}`,
		"state":      `{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1}`,
		"controller": `{"brokerid":1}`,
		"broker":     `{"version":5,"jmx_port":-1,"endpoints":[]}`,
		"logdir":     `{"broker":1}`,
		"cluster":    `{"id":"x"}`,
		"config":     `{"config":{"a":"b"}}`,
		"pid":        `{"broker":1,"block_start":"0","block_end":"999"}`,
		"isr":        `{"partitions":[]}`,
		"preferred":  `{"partitions":[]}`,
		"reassign":   `{"partitions":[]}`,
		"aclchange":  `{"resourceType":"TOPIC","name":"a","patternType":"PREFIXED"}`,
	}
	for name, in := range cases {
		if err := dec[name]([]byte(in)); err != nil {
			t.Errorf("%s: %s: %v", name, in, err)
		}
	}
}

// TestVersionsReadAreReported: Version reports what was read, so callers
// can tell a legacy payload from a current one, while Encode always writes
// the current version.
func TestVersionsReadAreReported(t *testing.T) {
	a, _ := znodes.DecodeTopicAssignment("t", []byte(`{"version":1,"partitions":{}}`))
	s, _ := znodes.DecodePartitionState("t", 0, []byte(`{"version":7,"leader":1,"leader_epoch":0,"isr":[],"controller_epoch":1}`))
	c, _ := znodes.DecodeEntityConfig("topics", "t", []byte(`{"config":{}}`))
	b, _ := znodes.DecodeBrokerRegistration(1, []byte(`{"version":4,"jmx_port":-1,"endpoints":[]}`))
	got := []int32{a.Version, s.Version, c.Version, b.Version}
	if want := []int32{1, 7, 0, 4}; !reflect.DeepEqual(got, want) {
		t.Fatalf("versions read = %v, want %v", got, want)
	}
	written := map[string]encoder{`"version":3`: a, `"version":1`: s, `{"version":1`: c, `{"version":5`: b}
	for want, v := range written {
		enc, err := v.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(enc), want) {
			t.Errorf("Encode should write %s: %s", want, enc)
		}
	}
}

// TestUUIDTrailingBits: Kafka decodes with Java's lenient base64 decoder, so
// the last character's two unused bits are ignored; re-encoding writes the
// canonical form.
func TestUUIDTrailingBits(t *testing.T) {
	canonical := mustUUID(t, "qSVG0ukwQZqMS74sw61E-w")
	sloppy, err := znodes.ParseUUID("qSVG0ukwQZqMS74sw61E-x")
	if err != nil {
		t.Fatal(err)
	}
	if sloppy != canonical || sloppy.String() != "qSVG0ukwQZqMS74sw61E-w" {
		t.Fatalf("got %s", sloppy)
	}
}

func TestUUIDRoundTripAllBytes(t *testing.T) {
	for b := 0; b < 256; b++ {
		var u znodes.UUID
		for i := range u {
			u[i] = byte(b + i*17)
		}
		back, err := znodes.ParseUUID(u.String())
		if err != nil || back != u || len(u.String()) != 22 {
			t.Fatalf("%x: %s -> %x, %v", u[:], u, back[:], err)
		}
	}
}

func TestConfigChangeEdgeCases(t *testing.T) {
	n, err := znodes.DecodeConfigChangeNotification("", []byte(`{"version":2,"entity_path":"users/"}`))
	if err != nil || n.EntityType != "users" || n.EntityName != "" {
		t.Fatalf("empty entity name: %+v, %v", n, err)
	}
	n, err = znodes.DecodeConfigChangeNotification("", []byte(`{"version":2,"entity_path":"clients/a/b/c"}`))
	if err != nil || n.EntityName != "a/b/c" {
		t.Fatalf("split at the first slash only: %+v, %v", n, err)
	}
	n, err = znodes.DecodeConfigChangeNotification("", []byte(`{"version":1,"entity_type":"clients","entity_name":"my%20app","x":1}`))
	if err != nil || n.EntityPath() != "clients/my%20app" {
		t.Fatalf("v1 clients: %+v, %v", n, err)
	}
	enc, _ := n.Encode()
	if string(enc) != `{"version":2,"entity_path":"clients/my%20app"}` {
		t.Fatalf("v1 upgrades to v2 on encode: %s", enc)
	}
}

func TestProducerIDBlockBoundaries(t *testing.T) {
	cases := map[string]bool{
		`{"broker":1,"block_start":"0","block_end":"0"}`:                                      true,
		`{"broker":1,"block_start":"0","block_end":"2147483646"}`:                             true,
		`{"broker":1,"block_start":"0","block_end":"2147483647"}`:                             false, // size 2^31 overflows int
		`{"broker":1,"block_start":"-5","block_end":"-5"}`:                                    true,
		`{"broker":1,"block_start":"1","block_end":"0"}`:                                      false,
		`{"broker":1,"block_start":"9223372036854775807","block_end":"9223372036854775807"}`:  true,
		`{"broker":1,"block_start":"9223372036854775807","block_end":"-9223372036854775808"}`: false,
	}
	for in, ok := range cases {
		_, err := znodes.DecodeProducerIDBlock([]byte(in))
		if (err == nil) != ok {
			t.Errorf("%s: err=%v, want ok=%v", in, err, ok)
		}
	}
}

func TestControllerEncodeKeepsKRaftEpoch(t *testing.T) {
	c, err := znodes.DecodeControllerRegistration([]byte(`{"version":2,"brokerid":3000,"timestamp":"1","kraftControllerEpoch":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.KRaftControllerEpoch != 5 {
		t.Fatalf("kraft epoch %d", c.KRaftControllerEpoch)
	}
	enc, _ := c.Encode()
	if string(enc) != `{"version":2,"brokerid":3000,"timestamp":"1","kraftControllerEpoch":5}` {
		t.Fatalf("got %s", enc)
	}
}

func TestFeatureStatusesAndLevels(t *testing.T) {
	ff, err := znodes.DecodeFinalizedFeatures([]byte(
		`{"features":{"a":{"max_version_level":1},"b":{"max_version_level":32767}},"version":2,"status":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int16{"a": 1, "b": 32767}; !reflect.DeepEqual(ff.Features, want) {
		t.Fatalf("features %v", ff.Features)
	}
	enc, _ := ff.Encode()
	const want = `{"features":{"a":{"max_version_level":1},"b":{"max_version_level":32767}},"version":2,"status":1}`
	if string(enc) != want {
		t.Fatalf("got %s", enc)
	}
}

func ExampleParseSequentialChild() {
	for _, child := range []string{"config_change_0000000012", "config_change_0000000013", "stray"} {
		seq, err := znodes.ParseSequentialChild(znodes.ConfigChangePrefix, child)
		fmt.Println(seq, err != nil)
	}
	// Output:
	// 12 false
	// 13 false
	// 0 true
}
