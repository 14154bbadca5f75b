package znodes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// intSlot is a payload template with one integer slot, marked %s, that
// Kafka reads as a Java int (DecodeJson.DecodeInt: only IntNode passes).
type intSlot struct {
	decoder string // key into decoders()
	tmpl    string
}

func intSlots() []intSlot {
	return []intSlot{
		{"state", `{"controller_epoch":1,"leader":%s,"leader_epoch":0,"isr":[1]}`},
		{"state", `{"controller_epoch":1,"leader":1,"leader_epoch":%s,"isr":[1]}`},
		{"state", `{"controller_epoch":%s,"leader":1,"leader_epoch":0,"isr":[1]}`},
		{"state", `{"controller_epoch":1,"leader":1,"leader_epoch":0,"isr":[1,%s]}`},
		{"topic", `{"version":3,"partitions":{"0":[%s]}}`},
		{"topic", `{"version":3,"partitions":{"0":[1]},"adding_replicas":{"0":[%s]}}`},
		{"broker", `{"version":5,"jmx_port":%s,"endpoints":[]}`},
		{"broker", `{"version":1,"jmx_port":-1,"host":"h","port":%s}`},
		{"controller", `{"version":2,"brokerid":%s}`},
		{"controller", `{"version":2,"brokerid":1,"kraftControllerEpoch":%s}`},
		{"logdir", `{"version":1,"broker":%s,"event":1}`},
		{"isr", `{"version":1,"partitions":[{"topic":"a","partition":%s}]}`},
		{"preferred", `{"version":1,"partitions":[{"topic":"a","partition":%s}]}`},
		{"reassign", `{"version":1,"partitions":[{"topic":"a","partition":%s,"replicas":[1]}]}`},
		{"reassign", `{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[%s]}]}`},
		{"pid", `{"version":1,"broker":%s,"block_start":"0","block_end":"999"}`},
		{"migration", `{"version":0,"kraft_controller_id":%s,"kraft_controller_epoch":1,"kraft_metadata_offset":1,"kraft_metadata_epoch":1}`},
		{"acls", `{"version":%s,"acls":[]}`},
	}
}

// TestIntegerFieldsAcceptJavaInts: every int32 literal Jackson turns into
// an IntNode is accepted (the value may still fail a later range rule, which
// these templates avoid by using values valid everywhere they matter).
func TestIntegerFieldsAcceptJavaInts(t *testing.T) {
	dec := decoders()
	for _, slot := range intSlots() {
		for _, lit := range []string{"0", "1", "-0"} {
			in := strings.Replace(slot.tmpl, "%s", lit, 1)
			if slot.decoder == "acls" || slot.decoder == "migration" {
				continue // these pin the version; covered by their own tests
			}
			if err := dec[slot.decoder]([]byte(in)); err != nil {
				t.Errorf("%s: %s rejected: %v", slot.decoder, in, err)
			}
		}
	}
}

// TestIntegerFieldsRejectNonInts: floats, exponents, strings, booleans,
// null, containers and values outside int32 are all rejected, as Kafka
// rejects them, and the error names the field.
func TestIntegerFieldsRejectNonInts(t *testing.T) {
	dec := decoders()
	bad := map[string]string{
		"1.0":                     "want integer, got number 1.0",
		"1.5":                     "want integer, got number 1.5",
		"1e0":                     "want integer, got number 1e0",
		"1E2":                     "want integer, got number 1E2",
		"-0.0":                    "want integer, got number -0.0",
		"2147483648":              "want 32-bit integer, got 2147483648",
		"-2147483649":             "want 32-bit integer, got -2147483649",
		"99999999999999999999999": "want 32-bit integer, got 99999999999999999999999",
		`"1"`:                     "want integer, got string",
		"true":                    "want integer, got boolean",
		"null":                    "want integer, got null",
		"[1]":                     "want integer, got array",
		`{"a":1}`:                 "want integer, got object",
	}
	for _, slot := range intSlots() {
		for lit, reason := range bad {
			in := strings.Replace(slot.tmpl, "%s", lit, 1)
			err := dec[slot.decoder]([]byte(in))
			var de *znodes.DecodeError
			if !errors.As(err, &de) {
				t.Errorf("%s: %s: want *DecodeError, got %v", slot.decoder, in, err)
				continue
			}
			if de.Reason != reason || de.Field == "" {
				t.Errorf("%s: %s: got field %s reason %q, want reason %q", slot.decoder, in, de.Field, de.Reason, reason)
			}
		}
	}
}

// stringSlots are fields Kafka writes, and reads, as JSON strings even when
// they hold numbers.
func stringSlots() []intSlot {
	return []intSlot{
		{"config", `{"version":1,"config":{"retention.ms":%s}}`},
		{"cluster", `{"version":%s,"id":"x"}`},
		{"cluster", `{"version":"1","id":%s}`},
		{"controller", `{"version":2,"brokerid":1,"timestamp":%s}`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"timestamp":%s}`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[%s]}`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"rack":%s}`},
		{"pid", `{"version":1,"broker":1,"block_start":%s,"block_end":"999"}`},
		{"pid", `{"version":1,"broker":1,"block_start":"0","block_end":%s}`},
		{"topic", `{"version":3,"partitions":{},"topic_id":%s}`},
		{"change", `{"version":2,"entity_path":%s}`},
		{"isr", `{"version":1,"partitions":[{"topic":%s,"partition":0}]}`},
		{"reassign", `{"version":1,"partitions":[{"topic":%s,"partition":0,"replicas":[]}]}`},
		{"acls", `{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","operation":"Read","host":%s}]}`},
	}
}

func TestStringFieldsRejectNonStrings(t *testing.T) {
	dec := decoders()
	for _, slot := range stringSlots() {
		for _, lit := range []string{"5", "-1", "1.5", "true", "[]", "{}"} {
			in := strings.Replace(slot.tmpl, "%s", lit, 1)
			err := dec[slot.decoder]([]byte(in))
			var de *znodes.DecodeError
			if !errors.As(err, &de) || !strings.HasPrefix(de.Reason, "want string") && !strings.HasPrefix(de.Reason, "want array of strings") {
				t.Errorf("%s: %s: want a string type error, got %v", slot.decoder, in, err)
			}
		}
	}
}

// TestStringFieldsNullHandling: Kafka's Option[String] fields (rack,
// timestamp for registration purposes, entity_path) take null as absent;
// required strings reject it.
func TestStringFieldsNullHandling(t *testing.T) {
	dec := decoders()
	absentOK := []string{
		`{"version":5,"jmx_port":-1,"endpoints":[],"rack":null}`,
		`{"version":5,"jmx_port":-1,"endpoints":[],"timestamp":null,"host":null}`,
	}
	for _, in := range absentOK {
		if err := dec["broker"]([]byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	required := map[string]string{
		"cluster":  `{"version":"1","id":null}`,
		"config":   `{"version":1,"config":{"a":null}}`,
		"pid":      `{"broker":1,"block_start":null,"block_end":"1"}`,
		"isr":      `{"partitions":[{"topic":null,"partition":0}]}`,
		"reassign": `{"version":1,"partitions":[{"topic":null,"partition":0,"replicas":[]}]}`,
	}
	for name, in := range required {
		if err := dec[name]([]byte(in)); err == nil || !strings.Contains(err.Error(), "want string, got null") {
			t.Errorf("%s: %s: got %v", name, in, err)
		}
	}
}

// TestPrettyPrintedPayloadsDecode: hand-written payloads with whitespace and
// any key order read the same as Kafka's compact ones.
func TestPrettyPrintedPayloadsDecode(t *testing.T) {
	s, err := znodes.DecodePartitionState("t", 0, []byte(" {\n  \"isr\" : [ 1 ,\t2 ] ,\r\n  \"leader\" : 1 , "+
		"\"leader_epoch\" : 0 , \"controller_epoch\" : 3 , \"extra\" : { \"a\" : [ 1 , 2 ] }\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Leader != 1 || s.ControllerEpoch != 3 || len(s.ISR) != 2 || string(s.Unknown["extra"]) != `{"a":[1,2]}` {
		t.Fatalf("got %+v", s)
	}
	a, err := znodes.DecodeTopicAssignment("t", []byte("{\n \"topic_id\" : \"qSVG0ukwQZqMS74sw61E-w\",\n"+
		" \"partitions\" : { \"1\" : [ 2 ] , \"0\" : [ 1 ] }\n}"))
	if err != nil || len(a.Partitions) != 2 || a.TopicID.IsZero() {
		t.Fatalf("got %+v, %v", a, err)
	}
}

// TestDuplicateKeysLastWins matches Jackson's tree model.
func TestDuplicateKeysLastWins(t *testing.T) {
	s, err := znodes.DecodePartitionState("t", 0, []byte(
		`{"leader":1,"leader":2,"leader_epoch":0,"isr":[],"controller_epoch":1}`))
	if err != nil || s.Leader != 2 {
		t.Fatalf("got %+v, %v", s, err)
	}
	c, err := znodes.DecodeEntityConfig("topics", "t", []byte(`{"config":{"a":"1","a":"2"}}`))
	if err != nil || c.Config["a"] != "2" {
		t.Fatalf("got %+v, %v", c, err)
	}
}

// TestEscapedKeysAreUnescaped: a key written with escapes is the same key.
func TestEscapedKeysAreUnescaped(t *testing.T) {
	s, err := znodes.DecodePartitionState("t", 0, []byte(
		`{"\u006ceader":4,"leader_epoch":0,"isr":[],"controller_epoch":1}`))
	if err != nil || s.Leader != 4 || s.Unknown != nil {
		t.Fatalf("got %+v, %v", s, err)
	}
}
