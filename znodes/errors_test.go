package znodes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// decoders maps a short name to a decode call returning only the error, so
// the error tables below can cover every decoder uniformly.
func decoders() map[string]func([]byte) error {
	return map[string]func([]byte) error{
		"cluster":    func(b []byte) error { _, err := znodes.DecodeClusterID(b); return err },
		"controller": func(b []byte) error { _, err := znodes.DecodeControllerRegistration(b); return err },
		"epoch":      func(b []byte) error { _, err := znodes.DecodeControllerEpoch(b); return err },
		"broker":     func(b []byte) error { _, err := znodes.DecodeBrokerRegistration(7, b); return err },
		"topic":      func(b []byte) error { _, err := znodes.DecodeTopicAssignment("foo", b); return err },
		"state":      func(b []byte) error { _, err := znodes.DecodePartitionState("foo", 3, b); return err },
		"reassign":   func(b []byte) error { _, err := znodes.DecodeReassignPartitions(b); return err },
		"preferred":  func(b []byte) error { _, err := znodes.DecodePreferredReplicaElection(b); return err },
		"isr": func(b []byte) error {
			_, err := znodes.DecodeIsrChangeNotification("isr_change_0000000012", b)
			return err
		},
		"logdir": func(b []byte) error { _, err := znodes.DecodeLogDirEventNotification("", b); return err },
		"config": func(b []byte) error { _, err := znodes.DecodeEntityConfig("topics", "orders", b); return err },
		"change": func(b []byte) error {
			_, err := znodes.DecodeConfigChangeNotification("config_change_0000000003", b)
			return err
		},
		"feature":   func(b []byte) error { _, err := znodes.DecodeFinalizedFeatures(b); return err },
		"pid":       func(b []byte) error { _, err := znodes.DecodeProducerIDBlock(b); return err },
		"migration": func(b []byte) error { _, err := znodes.DecodeMigrationState(b); return err },
		"acls": func(b []byte) error {
			_, err := znodes.DecodeResourceACLs("/kafka-acl/Topic/foo", b)
			return err
		},
		"aclchange": func(b []byte) error { _, err := znodes.DecodeExtendedACLChange(b); return err },
	}
}

type errorCase struct {
	decoder string
	in      string
	want    string // the exact Error() text
}

func runErrorCases(t *testing.T, cases []errorCase) {
	t.Helper()
	dec := decoders()
	for _, c := range cases {
		t.Run(c.decoder+"/"+c.in, func(t *testing.T) {
			f, ok := dec[c.decoder]
			if !ok {
				t.Fatalf("no decoder %q", c.decoder)
			}
			err := f([]byte(c.in))
			if err == nil {
				t.Fatalf("decode(%s) succeeded, want error %q", c.in, c.want)
			}
			var de *znodes.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *DecodeError", err, err)
			}
			if err.Error() != c.want {
				t.Fatalf("error\n got %q\nwant %q", err.Error(), c.want)
			}
		})
	}
}

func TestDecodeErrorsWholePayload(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"topic", `{"version":3,`, `znode /brokers/topics/foo: invalid JSON: unexpected end of JSON input`},
		{"topic", `{"version":3}x`, `znode /brokers/topics/foo: invalid JSON: invalid character 'x' after top-level value`},
		{"topic", `[1,2]`, `znode /brokers/topics/foo: want JSON object, got array`},
		{"topic", `null`, `znode /brokers/topics/foo: want JSON object, got null`},
		{"topic", `"x"`, `znode /brokers/topics/foo: want JSON object, got string`},
		{"topic", `12`, `znode /brokers/topics/foo: want JSON object, got number`},
		{"topic", "{\"version\":3,\"x\":\"\xff\"}", `znode /brokers/topics/foo: invalid JSON: not valid UTF-8`},
		{"topic", `{'version':3}`, `znode /brokers/topics/foo: invalid JSON: invalid character '\'' looking for beginning of object key string`},
		{"state", `{"leader":1,}`, `znode /brokers/topics/foo/partitions/3/state: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"state", ``, `znode /brokers/topics/foo/partitions/3/state: empty data`},
		{"broker", `true`, `znode /brokers/ids/7: want JSON object, got boolean`},
		{"cluster", ``, `znode /cluster/id: empty data`},
		{"controller", `{"brokerid":NaN}`, `znode /controller: invalid JSON: invalid character 'N' looking for beginning of value`},
		{"epoch", ``, `znode /controller_epoch: empty data`},
		{"epoch", `7\n`, `znode /controller_epoch: want decimal epoch: "7\\n" is not a decimal number`},
		{"epoch", " 7", `znode /controller_epoch: want decimal epoch: " 7" is not a decimal number`},
		{"epoch", `{"epoch":7}`, `znode /controller_epoch: want decimal epoch: "{\"epoch\":7}" is not a decimal number`},
		{"epoch", `2147483648`, `znode /controller_epoch: want decimal epoch: "2147483648" is out of range for a 32-bit integer`},
		{"isr", `[]`, `znode /isr_change_notification/isr_change_0000000012: want JSON object, got array`},
		{"logdir", `{`, `znode /log_dir_event_notification/log_dir_event_<seq>: invalid JSON: unexpected end of JSON input`},
		{"change", `not json`, `znode /config/changes/config_change_0000000003: invalid JSON: invalid character 'o' in literal null (expecting 'u')`},
		{"config", `{"version":1,"config":`, `znode /config/topics/orders: invalid JSON: unexpected end of JSON input`},
		{"feature", ``, `znode /feature: empty data`},
		{"pid", ``, `znode /latest_producer_id_block: empty data`},
		{"migration", `[]`, `znode /migration: want JSON object, got array`},
		{"reassign", `{}}`, `znode /admin/reassign_partitions: invalid JSON: invalid character '}' after top-level value`},
		{"preferred", `{"partitions":[}`, `znode /admin/preferred_replica_election: invalid JSON: invalid character '}' looking for beginning of value`},
		{"acls", `{"version":1,"acls":[`, `znode /kafka-acl/Topic/foo: invalid JSON: unexpected end of JSON input`},
		{"aclchange", `TOPIC:foo`, `znode /kafka-acl-extended-changes/acl_changes_<seq>: invalid JSON: invalid character 'T' looking for beginning of value`},
	})
}

func TestDecodeErrorsNullData(t *testing.T) {
	for name, f := range decoders() {
		if name == "config" || name == "acls" {
			continue // null means "no overrides" / "no ACLs", as in Kafka
		}
		err := f(nil)
		if !errors.Is(err, znodes.ErrNoData) {
			t.Errorf("%s: decode(nil) = %v, want ErrNoData", name, err)
		}
		if err != nil && !strings.HasSuffix(err.Error(), ": null data") {
			t.Errorf("%s: decode(nil) error %q should say null data", name, err)
		}
		if err := f([]byte{}); !errors.Is(err, znodes.ErrNoData) {
			t.Errorf("%s: decode(empty) = %v, want ErrNoData", name, err)
		}
	}
}

func TestDecodeErrorsTopicAssignment(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"topic", `{"partitions":{"0":"1,2"}}`, `znode /brokers/topics/foo: field "partitions"."0": want array of integers, got string`},
		{"topic", `{"partitions":{"0":[1,"2"]}}`, `znode /brokers/topics/foo: field "partitions"."0"[1]: want integer, got string`},
		{"topic", `{"partitions":{"0":[1,2.0]}}`, `znode /brokers/topics/foo: field "partitions"."0"[1]: want integer, got number 2.0`},
		{"topic", `{"partitions":{"0":[1,2e0]}}`, `znode /brokers/topics/foo: field "partitions"."0"[1]: want integer, got number 2e0`},
		{"topic", `{"partitions":{"0":[1,2147483648]}}`, `znode /brokers/topics/foo: field "partitions"."0"[1]: want 32-bit integer, got 2147483648`},
		{"topic", `{"partitions":{"0":[null]}}`, `znode /brokers/topics/foo: field "partitions"."0"[0]: want integer, got null`},
		{"topic", `{"partitions":{"0":null}}`, `znode /brokers/topics/foo: field "partitions"."0": want array of integers, got null`},
		{"topic", `{"partitions":[[1,2]]}`, `znode /brokers/topics/foo: field "partitions": want object, got array`},
		{"topic", `{"partitions":{"a":[1]}}`, `znode /brokers/topics/foo: field "partitions"."a": want partition id as canonical non-negative decimal, got "a"`},
		{"topic", `{"partitions":{"01":[1]}}`, `znode /brokers/topics/foo: field "partitions"."01": want partition id as canonical non-negative decimal, got "01"`},
		{"topic", `{"partitions":{"-1":[1]}}`, `znode /brokers/topics/foo: field "partitions"."-1": want partition id as canonical non-negative decimal, got "-1"`},
		{"topic", `{"partitions":{"2147483648":[1]}}`, `znode /brokers/topics/foo: field "partitions"."2147483648": want partition id as canonical non-negative decimal, got "2147483648"`},
		{"topic", `{"partitions":{},"adding_replicas":{"0":{}}}`, `znode /brokers/topics/foo: field "adding_replicas"."0": want array of integers, got object`},
		{"topic", `{"partitions":{},"removing_replicas":[]}`, `znode /brokers/topics/foo: field "removing_replicas": want object, got array`},
		{"topic", `{"version":"3","partitions":{}}`, `znode /brokers/topics/foo: field "version": want integer, got string`},
		{"topic", `{"partitions":{},"topic_id":5}`, `znode /brokers/topics/foo: field "topic_id": want string, got number`},
		{"topic", `{"partitions":{},"topic_id":"abc"}`, `znode /brokers/topics/foo: field "topic_id": uuid "abc": want 22 base64url characters`},
		{"topic", `{"partitions":{},"topic_id":"qSVG0ukwQZqMS74sw61E+w"}`, `znode /brokers/topics/foo: field "topic_id": uuid "qSVG0ukwQZqMS74sw61E+w": invalid character '+'`},
	})
}

func TestDecodeErrorsPartitionState(t *testing.T) {
	const z = `znode /brokers/topics/foo/partitions/3/state: `
	runErrorCases(t, []errorCase{
		{"state", `{"leader_epoch":0,"isr":[1],"controller_epoch":1}`, z + `field "leader": required field missing`},
		{"state", `{"leader":1,"isr":[1],"controller_epoch":1}`, z + `field "leader_epoch": required field missing`},
		{"state", `{"leader":1,"leader_epoch":0,"controller_epoch":1}`, z + `field "isr": required field missing`},
		{"state", `{"leader":1,"leader_epoch":0,"isr":[1]}`, z + `field "controller_epoch": required field missing`},
		{"state", `{"leader":"1","leader_epoch":0,"isr":[1],"controller_epoch":1}`, z + `field "leader": want integer, got string`},
		{"state", `{"leader":1.5,"leader_epoch":0,"isr":[1],"controller_epoch":1}`, z + `field "leader": want integer, got number 1.5`},
		{"state", `{"leader":1,"leader_epoch":-2147483649,"isr":[1],"controller_epoch":1}`, z + `field "leader_epoch": want 32-bit integer, got -2147483649`},
		{"state", `{"leader":1,"leader_epoch":0,"isr":"1","controller_epoch":1}`, z + `field "isr": want array of integers, got string`},
		{"state", `{"leader":1,"leader_epoch":0,"isr":[true],"controller_epoch":1}`, z + `field "isr"[0]: want integer, got boolean`},
		{"state", `{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":null}`, z + `field "controller_epoch": want integer, got null`},
		{"state", `{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1,"leader_recovery_state":2}`, z + `field "leader_recovery_state": want 0 (recovered) or 1 (recovering), got 2`},
		{"state", `{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1,"leader_recovery_state":257}`, z + `field "leader_recovery_state": want 0 (recovered) or 1 (recovering), got 257`},
		{"state", `{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1,"eligible_leader_replicas":{}}`, z + `field "eligible_leader_replicas": want array of integers, got object`},
		{"state", `{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1,"last_known_elr":[1,"x"]}`, z + `field "last_known_elr"[1]: want integer, got string`},
		{"state", `{"version":1.0,"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1}`, z + `field "version": want integer, got number 1.0`},
	})
}

func TestDecodeErrorsBroker(t *testing.T) {
	const z = `znode /brokers/ids/7: `
	runErrorCases(t, []errorCase{
		{"broker", `{"jmx_port":-1,"endpoints":[]}`, z + `field "version": required field missing`},
		{"broker", `{"version":0,"jmx_port":-1,"endpoints":[]}`, z + `field "version": unsupported version 0 of broker registration`},
		{"broker", `{"version":5,"endpoints":[]}`, z + `field "jmx_port": required field missing`},
		{"broker", `{"version":5,"jmx_port":"9999","endpoints":[]}`, z + `field "jmx_port": want integer, got string`},
		{"broker", `{"version":5,"jmx_port":-1}`, z + `field "endpoints": required field missing`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":"PLAINTEXT://h:1"}`, z + `field "endpoints": want array of strings, got string`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[1]}`, z + `field "endpoints"[0]: want string, got number`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":["h:1"]}`, z + `field "endpoints": unable to parse "h:1" to a broker endpoint`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":["PLAINTEXT://h:x"]}`, z + `field "endpoints": unable to parse "PLAINTEXT://h:x" to a broker endpoint`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":["PLAINTEXT://h/x:1"]}`, z + `field "endpoints": unable to parse "PLAINTEXT://h/x:1" to a broker endpoint`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":["PLAINTEXT://h:99999999999"]}`, z + `field "endpoints": endpoint "PLAINTEXT://h:99999999999": port out of range`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":["INTERNAL://h:1"]}`, z + `field "endpoints": no security protocol defined for listener INTERNAL`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":["internal://h:1"],"listener_security_protocol_map":{"internal":"SSL"}}`, z + `field "endpoints": no security protocol defined for listener INTERNAL`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":["SSL://h:1","ssl://h:2"]}`, z + `field "endpoints": each listener must have a different name, "SSL" is repeated`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"listener_security_protocol_map":{"A":"TLS"}}`, z + `field "listener_security_protocol_map"."A": unknown security protocol "TLS"`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"listener_security_protocol_map":{"A":1}}`, z + `field "listener_security_protocol_map"."A": want string, got number`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"listener_security_protocol_map":[]}`, z + `field "listener_security_protocol_map": want object, got array`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"rack":1}`, z + `field "rack": want string, got number`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"timestamp":1700000000123}`, z + `field "timestamp": want string, got number`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"host":9}`, z + `field "host": want string, got number`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"port":"9092"}`, z + `field "port": want integer, got string`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"features":[]}`, z + `field "features": want object, got array`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"features":{"f":{"max_version":1}}}`, z + `field "features"."f": want both min_version and max_version`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"features":{"f":{"min_version":2,"max_version":1}}}`, z + `field "features"."f": want 0 <= min_version <= max_version, got 2..1`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"features":{"f":{"min_version":-1,"max_version":1}}}`, z + `field "features"."f": want 0 <= min_version <= max_version, got -1..1`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"features":{"f":{"min_version":0,"max_version":40000}}}`, z + `field "features"."f"."max_version": want 16-bit integer, got 40000`},
		{"broker", `{"version":5,"jmx_port":-1,"endpoints":[],"features":{"f":{"min_version":0,"max_version":1,"first_active_version":"x"}}}`, z + `field "features"."f"."first_active_version": want integer, got string`},
		{"broker", `{"version":1,"jmx_port":-1,"port":9092}`, z + `field "host": required field missing`},
		{"broker", `{"version":1,"jmx_port":-1,"host":null,"port":9092}`, z + `field "host": want string, got null`},
		{"broker", `{"version":1,"jmx_port":-1,"host":"h"}`, z + `field "port": required field missing`},
		{"broker", `{"version":1,"jmx_port":-1,"host":"a b","port":1}`, z + `field "host": host "a b" cannot be written as an endpoint`},
	})
}

func TestDecodeErrorsSmallPayloads(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"cluster", `{"version":"1"}`, `znode /cluster/id: field "id": required field missing`},
		{"cluster", `{"version":"1","id":7}`, `znode /cluster/id: field "id": want string, got number`},
		{"cluster", `{"version":1,"id":"x"}`, `znode /cluster/id: field "version": want string, got number`},
		{"controller", `{"version":2}`, `znode /controller: field "brokerid": required field missing`},
		{"controller", `{"version":2,"brokerid":"1"}`, `znode /controller: field "brokerid": want integer, got string`},
		{"controller", `{"version":2,"brokerid":1,"kraftControllerEpoch":null}`, `znode /controller: field "kraftControllerEpoch": want integer, got null`},
		{"controller", `{"version":2,"brokerid":1,"timestamp":17}`, `znode /controller: field "timestamp": want string, got number`},
		{"controller", `1.5`, `znode /controller: want JSON object, got number`},
		{"logdir", `{"version":1,"event":1}`, `znode /log_dir_event_notification/log_dir_event_<seq>: field "broker": required field missing`},
		{"logdir", `{"version":1,"broker":"3"}`, `znode /log_dir_event_notification/log_dir_event_<seq>: field "broker": want integer, got string`},
		{"isr", `{"version":1}`, `znode /isr_change_notification/isr_change_0000000012: field "partitions": required field missing`},
		{"isr", `{"partitions":[{"topic":"a"}]}`, `znode /isr_change_notification/isr_change_0000000012: field "partitions"[0]."partition": required field missing`},
		{"isr", `{"partitions":[{"topic":1,"partition":0}]}`, `znode /isr_change_notification/isr_change_0000000012: field "partitions"[0]."topic": want string, got number`},
		{"isr", `{"partitions":[[]]}`, `znode /isr_change_notification/isr_change_0000000012: field "partitions"[0]: want object, got array`},
		{"preferred", `{"partitions":{}}`, `znode /admin/preferred_replica_election: field "partitions": want array, got object`},
		{"preferred", `{"version":1}`, `znode /admin/preferred_replica_election: field "partitions": required field missing`},
		{"preferred", `{"partitions":[{"topic":"a","partition":0.0}]}`, `znode /admin/preferred_replica_election: field "partitions"[0]."partition": want integer, got number 0.0`},
		{"pid", `{"version":1,"broker":1,"block_start":2000,"block_end":"2999"}`, `znode /latest_producer_id_block: field "block_start": want string, got number`},
		{"pid", `{"version":1,"broker":1,"block_start":"2000"}`, `znode /latest_producer_id_block: field "block_end": required field missing`},
		{"pid", `{"version":1,"block_start":"0","block_end":"999"}`, `znode /latest_producer_id_block: field "broker": required field missing`},
		{"pid", `{"broker":1,"block_start":"x","block_end":"999"}`, `znode /latest_producer_id_block: field "block_start": want decimal long in a string: "x" is not a decimal number`},
		{"pid", `{"broker":1,"block_start":"0","block_end":"9223372036854775808"}`, `znode /latest_producer_id_block: field "block_end": want decimal long in a string: "9223372036854775808" is out of range for a 64-bit integer`},
		{"pid", `{"broker":1,"block_start":"0","block_end":"4294967296"}`, `znode /latest_producer_id_block: field "block_end": block 0..4294967296: size does not fit a 32-bit int`},
		{"pid", `{"broker":1,"block_start":"-9223372036854775808","block_end":"9223372036854775807"}`, `znode /latest_producer_id_block: field "block_end": block -9223372036854775808..9223372036854775807: size does not fit a 32-bit int`},
		{"pid", `{"broker":1,"block_start":"10","block_end":"5"}`, `znode /latest_producer_id_block: field "block_end": block end 5 before start 10`},
		{"migration", `{"version":1,"kraft_controller_id":1,"kraft_controller_epoch":1,"kraft_metadata_offset":1,"kraft_metadata_epoch":1}`, `znode /migration: field "version": unknown version 1 of migration state`},
		{"migration", `{"version":0,"kraft_controller_id":1,"kraft_controller_epoch":1,"kraft_metadata_offset":"1","kraft_metadata_epoch":1}`, `znode /migration: field "kraft_metadata_offset": want integer, got string`},
		{"migration", `{"version":0,"kraft_controller_id":1,"kraft_controller_epoch":1,"kraft_metadata_offset":1}`, `znode /migration: field "kraft_metadata_epoch": required field missing`},
	})
}

func TestDecodeErrorsStrictReassignment(t *testing.T) {
	const z = `znode /admin/reassign_partitions: `
	runErrorCases(t, []errorCase{
		{"reassign", `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1],"log_dirs":["any"]}]}`,
			z + `field "partitions"[0]."log_dirs": unknown field (Kafka parses this znode strictly and would ignore it)`},
		{"reassign", `{"version":1,"partitions":[],"extra":1}`, z + `field "extra": unknown field (Kafka parses this znode strictly and would ignore it)`},
		{"reassign", `{"version":1}`, z + `field "partitions": required field missing`},
		{"reassign", `{"version":1,"partitions":{}}`, z + `field "partitions": want array, got object`},
		{"reassign", `{"version":1,"partitions":[{"partition":0,"replicas":[1]}]}`, z + `field "partitions"[0]."topic": required field missing`},
		{"reassign", `{"version":1,"partitions":[{"topic":"a","replicas":[1]}]}`, z + `field "partitions"[0]."partition": required field missing`},
		{"reassign", `{"version":1,"partitions":[{"topic":"a","partition":0}]}`, z + `field "partitions"[0]."replicas": required field missing`},
		{"reassign", `{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":"1"}]}`, z + `field "partitions"[0]."replicas": want array of integers, got string`},
		{"reassign", `{"version":"1","partitions":[]}`, z + `field "version": want integer, got string`},
		{"aclchange", `{"version":1,"resourceType":"TOPIC","name":"a","patternType":"PREFIXED","x":1}`,
			`znode /kafka-acl-extended-changes/acl_changes_<seq>: field "x": unknown field (Kafka parses this znode strictly and would ignore it)`},
		{"aclchange", `{"version":2,"resourceType":"TOPIC","name":"a","patternType":"PREFIXED"}`,
			`znode /kafka-acl-extended-changes/acl_changes_<seq>: field "version": ACL change event received for unsupported version 2`},
		{"aclchange", `{"version":1,"name":"a","patternType":"PREFIXED"}`,
			`znode /kafka-acl-extended-changes/acl_changes_<seq>: field "resourceType": required field missing`},
	})
}

func TestDecodeErrorsConfig(t *testing.T) {
	const z = `znode /config/topics/orders: `
	runErrorCases(t, []errorCase{
		{"config", `{"version":1,"config":{"retention.ms":86400000}}`, z + `field "config"."retention.ms": want string, got number`},
		{"config", `{"version":1,"config":{"a":null}}`, z + `field "config"."a": want string, got null`},
		{"config", `{"version":1,"config":{"a":true}}`, z + `field "config"."a": want string, got boolean`},
		{"config", `{"version":1,"config":{"a":["x"]}}`, z + `field "config"."a": want string, got array`},
		{"config", `{"version":"1","config":{}}`, z + `field "version": want integer, got string`},
		{"change", `{"entity_path":"topics/a"}`, `znode /config/changes/config_change_0000000003: field "version": required field missing`},
		{"change", `{"version":3,"entity_path":"topics/a"}`, `znode /config/changes/config_change_0000000003: field "version": config change notification has an unsupported version 3`},
		{"change", `{"version":2}`, `znode /config/changes/config_change_0000000003: field "entity_path": version 2 config change notification must specify 'entity_path'`},
		{"change", `{"version":2,"entity_path":7}`, `znode /config/changes/config_change_0000000003: field "entity_path": want string, got number`},
		{"change", `{"version":2,"entity_path":"topics"}`, `znode /config/changes/config_change_0000000003: field "entity_path": entity_path "topics" must start with one of 'topics', 'clients', 'users', 'brokers', 'ips' and a '/'`},
		{"change", `{"version":2,"entity_path":"groups/g"}`, `znode /config/changes/config_change_0000000003: field "entity_path": entity_path "groups/g" must start with one of 'topics', 'clients', 'users', 'brokers', 'ips' and a '/'`},
		{"change", `{"version":1,"entity_type":"users","entity_name":"a"}`, `znode /config/changes/config_change_0000000003: field "entity_type": version 1 config change notification must have 'entity_type' set to 'clients' or 'topics'`},
		{"change", `{"version":1,"entity_type":"topics"}`, `znode /config/changes/config_change_0000000003: field "entity_name": version 1 config change notification does not specify 'entity_name'`},
		{"change", `{"version":1,"entity_type":"topics","entity_name":1}`, `znode /config/changes/config_change_0000000003: field "entity_name": want string, got number`},
	})
}

func TestDecodeErrorsFeature(t *testing.T) {
	const z = `znode /feature: `
	runErrorCases(t, []errorCase{
		{"feature", `{"features":{},"status":1}`, z + `field "version": required field missing`},
		{"feature", `{"features":{},"version":3,"status":1}`, z + `field "version": unsupported version 3 of feature information`},
		{"feature", `{"features":{},"version":0,"status":1}`, z + `field "version": unsupported version 0 of feature information`},
		{"feature", `{"features":{},"version":2}`, z + `field "status": status can not be absent in feature information`},
		{"feature", `{"features":{},"version":2,"status":null}`, z + `field "status": status can not be absent in feature information`},
		{"feature", `{"features":{},"version":2,"status":2}`, z + `field "status": malformed status 2`},
		{"feature", `{"features":{},"version":2,"status":"1"}`, z + `field "status": want integer, got string`},
		{"feature", `{"version":2,"status":1}`, z + `field "features": features map can not be absent`},
		{"feature", `{"features":[],"version":2,"status":1}`, z + `field "features": want object, got array`},
		{"feature", `{"features":{"f":{}},"version":2,"status":1}`, z + `field "features"."f": max_version_level absent`},
		{"feature", `{"features":{"f":{"max_version_level":0}},"version":2,"status":1}`, z + `field "features"."f": want max_version_level >= 1, got 0`},
		{"feature", `{"features":{"f":{"max_version_level":2}},"version":1,"status":1}`, z + `field "features"."f": min_version_level absent`},
		{"feature", `{"features":{"f":{"min_version_level":0,"max_version_level":2}},"version":1,"status":1}`, z + `field "features"."f": want 1 <= min_version_level <= max_version_level, got 0..2`},
		{"feature", `{"features":{"f":{"min_version_level":3,"max_version_level":2}},"version":1,"status":1}`, z + `field "features"."f": want 1 <= min_version_level <= max_version_level, got 3..2`},
		{"feature", `{"features":{"f":{"max_version_level":"2"}},"version":2,"status":1}`, z + `field "features"."f"."max_version_level": want integer, got string`},
		{"feature", `{"features":{"f":{"max_version_level":32768}},"version":2,"status":1}`, z + `field "features"."f"."max_version_level": want 16-bit integer, got 32768`},
	})
}

func TestDecodeErrorsACLs(t *testing.T) {
	const z = `znode /kafka-acl/Topic/foo: `
	runErrorCases(t, []errorCase{
		{"acls", `{"acls":[]}`, z + `field "version": required field missing`},
		{"acls", `{"version":2,"acls":[]}`, z + `field "version": unsupported ACL version 2`},
		{"acls", `{"version":1}`, z + `field "acls": required field missing`},
		{"acls", `{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","operation":"Read"}]}`, z + `field "acls"[0]."host": required field missing`},
		{"acls", `{"version":1,"acls":[{"principal":"alice","permissionType":"Allow","operation":"Read","host":"*"}]}`, z + `field "acls"[0]."principal": want "<type>:<name>", got "alice"`},
		{"acls", `{"version":1,"acls":[{"principal":"User:a","permissionType":1,"operation":"Read","host":"*"}]}`, z + `field "acls"[0]."permissionType": want string, got number`},
	})
}

// TestDecodeErrorFieldClipsHugeKeys keeps messages readable for fuzzed keys.
func TestDecodeErrorFieldClipsHugeKeys(t *testing.T) {
	key := strings.Repeat("k", 200)
	_, err := znodes.DecodeEntityConfig("topics", "t", []byte(`{"config":{"`+key+`":1}}`))
	var de *znodes.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("want *DecodeError, got %v", err)
	}
	if len(de.Field) > 60 || !strings.HasSuffix(de.Field, `..."`) {
		t.Fatalf("field %q should be clipped", de.Field)
	}
}

func TestDecodeErrorAsAndFields(t *testing.T) {
	_, err := znodes.DecodeTopicAssignment("foo", []byte(`{"partitions":{"0":"x"}}`))
	var de *znodes.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("errors.As failed for %v", err)
	}
	if de.Znode != "/brokers/topics/foo" || de.Field != `"partitions"."0"` || de.Reason != "want array of integers, got string" {
		t.Fatalf("unexpected DecodeError %+v", de)
	}
	if de.Unwrap() != nil {
		t.Fatalf("type error should have no cause, got %v", de.Unwrap())
	}
	_, err = znodes.DecodeTopicAssignment("foo", []byte(`{`))
	if !errors.As(err, &de) || de.Err == nil || de.Field != "" {
		t.Fatalf("syntax error should carry its cause and no field: %+v", de)
	}
	wrapped := errors.Join(errors.New("reading topics"), err)
	if !errors.As(wrapped, &de) {
		t.Fatal("errors.As through a wrapper failed")
	}
}
