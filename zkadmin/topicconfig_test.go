package zkadmin

import (
	"strings"
	"testing"
)

func TestTopicConfigDefaultsAreValid(t *testing.T) {
	defs := TopicConfigDefs()
	if len(defs) != 36 {
		t.Errorf("%d topic configs; Kafka 3.9 has 36", len(defs))
	}
	for i, d := range defs {
		if i > 0 && defs[i-1].Name >= d.Name {
			t.Errorf("%s out of order", d.Name)
		}
		if msg := d.Validate(d.Default); msg != "" {
			t.Errorf("default of %s: %s", d.Name, msg)
		}
	}
}

func TestTopicConfigValues(t *testing.T) {
	cases := []struct {
		name, value, want string
	}{
		{"retention.ms", "-1", ""},
		{"retention.ms", " 100 ", ""},
		{"retention.ms", "-2", "Value must be at least -1"},
		{"retention.bytes", "-77", ""},
		{"segment.bytes", "13", "Value must be at least 14"},
		{"segment.bytes", "3000000000", "Not a number of type INT"},
		{"min.cleanable.dirty.ratio", "1.5", "Value must be no more than 1"},
		{"min.cleanable.dirty.ratio", "0.25", ""},
		{"compression.gzip.level", "0", "between 1 and 9 or equal to -1"},
		{"compression.gzip.level", "-1", ""},
		{"compression.zstd.level", "-131073", "at least -131072"},
		{"message.timestamp.type", "LogAppendTime", ""},
		{"message.timestamp.type", "logappendtime", "String must be one of: CreateTime, LogAppendTime"},
		{"cleanup.policy", "", ""},
		{"cleanup.policy", "compact , delete", ""},
		{"leader.replication.throttled.replicas", "*", ""},
		{"leader.replication.throttled.replicas", "0:1,1:2", ""},
		{"leader.replication.throttled.replicas", "0-1", "must be the literal '*'"},
		// Kafka prints the parsed list and repeats the name.
		{"follower.replication.throttled.replicas", "0:1, x", "Invalid value [0:1, x] for configuration " +
			"follower.replication.throttled.replicas: follower.replication.throttled.replicas must be the literal '*'"},
		{"message.format.version", "2.8", ""},
		{"message.format.version", "3.0-IV1", ""},
		{"message.format.version", "banana", "Unknown metadata.version"},
		{"unclean.leader.election.enable", "TRUE", ""},
		{"unclean.leader.election.enable", "1", "Expected value to be either true or false"},
		{"unclean.recovery.strategy", "Aggressive", ""},
		// Numbers parse as Java parses them: any Unicode decimal digit, a
		// float suffix, only the blanks String.trim strips, Infinity but
		// not inf; NaN is refused here, where Kafka's range checks let it
		// through.
		{"retention.ms", "\u0661\u0660\u0660\u0660", ""},
		{"retention.ms", "\u00a0100", "Not a number of type LONG"},
		{"retention.ms", "\t100\n", ""},
		{"min.cleanable.dirty.ratio", "0.5f", ""},
		{"min.cleanable.dirty.ratio", "Infinity", "Value must be no more than 1"},
		{"min.cleanable.dirty.ratio", "inf", "Not a number of type DOUBLE"},
		{"min.cleanable.dirty.ratio", "NaN", "Not a number of type DOUBLE"},
		{"compression.gzip.level", "\u0669", ""},
		{"compression.gzip.level", "x", "Not a number of type INT"},
	}
	for _, tc := range cases {
		d, ok := LookupTopicConfig(tc.name)
		if !ok {
			t.Fatalf("no %s", tc.name)
		}
		got := d.Validate(tc.value)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s=%q: %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestTopicConfigCrossChecks(t *testing.T) {
	err := ValidateTopicConfig("t", map[string]string{"remote.storage.enable": "true", "cleanup.policy": "compact"})
	wantKind(t, err, KindInvalidConfig, "Remote log storage is unsupported for the compacted topics")
	err = ValidateTopicConfig("t", map[string]string{"remote.storage.enable": "true", "retention.ms": "100", "local.retention.ms": "200"})
	wantKind(t, err, KindInvalidConfig, "local.retention.ms: Value must not be more than retention.ms property value: 100")
	if err := ValidateTopicConfig("t", map[string]string{"remote.storage.enable": "true", "local.retention.ms": "200"}); err != nil {
		t.Error(err)
	}
	d, _ := LookupTopicConfig("min.cleanable.dirty.ratio")
	if d.ValidValues() != "[0,...,1]" {
		t.Errorf("valid values %q", d.ValidValues())
	}
}

// TestTopicConfigCanonical: values as Kafka's DescribeConfigs prints them
// once parsed (ConfigDef.convertToString).
func TestTopicConfigCanonical(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{"retention.ms", " 1000 ", "1000"},
		{"retention.ms", "+1000", "1000"},
		{"retention.ms", "-1", "-1"},
		{"segment.bytes", "010", "10"},
		{"unclean.leader.election.enable", "TRUE", "true"},
		{"cleanup.policy", " compact , delete ", "compact,delete"},
		{"cleanup.policy", "", ""},
		{"min.cleanable.dirty.ratio", "1", "1.0"},
		{"min.cleanable.dirty.ratio", "0.25", "0.25"},
		{"compression.type", " zstd ", "zstd"},
		{"retention.ms", "soon", "soon"}, // not a number: as given
		{"retention.ms", "\u0661\u0660\u0660\u0660", "1000"},
		{"min.cleanable.dirty.ratio", "0.5d", "0.5"},
		{"min.cleanable.dirty.ratio", "0x1p-2", "0.25"},
		{"unclean.leader.election.enable", "\x01true\x02", "true"},
	} {
		d, ok := LookupTopicConfig(tc.name)
		if !ok {
			t.Fatalf("no %s", tc.name)
		}
		if got := d.Canonical(tc.value); got != tc.want {
			t.Errorf("%s=%q: %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}

// TestTopicConfigDocs: every topic config kzadmin knows has documentation.
func TestTopicConfigDocs(t *testing.T) {
	for _, d := range append(TopicConfigDefs(), extensionTopicConfigDefs()...) {
		if d.Doc() == "" {
			t.Errorf("%s has no documentation", d.Name)
		}
	}
	if topicConfigDoc("not.a.config") != "" {
		t.Error("documentation for an unknown name")
	}
}
