package znodes_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestValidateTopicNameAccepts(t *testing.T) {
	for _, name := range []string{
		"a", "orders", "Orders.v2", "my_topic-1", "...", "_", "-", "__consumer_offsets", "a..b",
		strings.Repeat("x", znodes.MaxTopicNameLength),
	} {
		if err := znodes.ValidateTopicName(name); err != nil {
			t.Errorf("ValidateTopicName(%q) = %v, want nil", name, err)
		}
	}
}

// TestValidateTopicNameKafkaMessages: Kafka 3.9's Topic.validate texts.
func TestValidateTopicNameKafkaMessages(t *testing.T) {
	long := strings.Repeat("x", 250)
	cases := map[string]string{
		"":       "Topic name is invalid: the empty string is not allowed",
		".":      `Topic name is invalid: '.' is not allowed`,
		"..":     `Topic name is invalid: '..' is not allowed`,
		long:     "Topic name is invalid: the length of '" + long + "' is longer than the max allowed length 249",
		"a b":    `Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`,
		"a/b":    `Topic name is invalid: 'a/b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`,
		"tópico": `Topic name is invalid: 'tópico' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`,
		"a:b":    `Topic name is invalid: 'a:b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`,
		"a\x00":  "Topic name is invalid: 'a\x00' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
	}
	for name, want := range cases {
		err := znodes.ValidateTopicName(name)
		var ite *znodes.InvalidTopicError
		if !errors.As(err, &ite) {
			t.Errorf("ValidateTopicName(%q) = %v, want *InvalidTopicError", name, err)
			continue
		}
		if ite.Message != want || err.Error() != want || ite.Topic != name {
			t.Errorf("ValidateTopicName(%q) = %q, want %q", name, err, want)
		}
	}
}

// TestValidateTopicNameLengthInJavaChars: the length check counts UTF-16
// units and runs before the character check, so a long non-ASCII name gets
// the length message, exactly as in Kafka.
func TestValidateTopicNameLengthInJavaChars(t *testing.T) {
	name := strings.Repeat("é", 125) // 125 Java chars, 250 bytes
	err := znodes.ValidateTopicName(name)
	if err == nil || !strings.Contains(err.Error(), "contains one or more characters other than") {
		t.Fatalf("125 chars must hit the character check, got %v", err)
	}
	name = strings.Repeat("😀", 125) // 250 Java chars (surrogate pairs)
	err = znodes.ValidateTopicName(name)
	if err == nil || !strings.Contains(err.Error(), "longer than the max allowed length 249") {
		t.Fatalf("250 UTF-16 units must hit the length check, got %v", err)
	}
}

func TestCollisions(t *testing.T) {
	if !znodes.HasCollisionChars("a.b") || !znodes.HasCollisionChars("a_b") || znodes.HasCollisionChars("a-b") {
		t.Fatal("HasCollisionChars wrong")
	}
	if got := znodes.UnifyCollisionChars("a.b_c.d"); got != "a_b_c_d" {
		t.Fatalf("UnifyCollisionChars = %q", got)
	}
	if !znodes.TopicsCollide("a.b", "a_b") || znodes.TopicsCollide("a.b", "a-b") || !znodes.TopicsCollide("x", "x") {
		t.Fatal("TopicsCollide wrong")
	}
	existing := []string{"a_b", "orders", "a.b", "a_b_c", "a-b"}
	if got := znodes.CollidingTopics("a.b", existing); !reflect.DeepEqual(got, []string{"a_b"}) {
		t.Fatalf("CollidingTopics = %q", got)
	}
	if got := znodes.CollidingTopics("ab", []string{"ab"}); got != nil {
		t.Fatalf("a name without . or _ never collides, got %q", got)
	}
	err := znodes.CheckTopicCollision("a.b", []string{"a_b", "x", "a.b"})
	if err == nil || err.Error() != "Topic 'a.b' collides with existing topics: a_b" {
		t.Fatalf("CheckTopicCollision = %v", err)
	}
	err = znodes.CheckTopicCollision("a_b_c", []string{"a.b.c", "a.b_c", "a_b_c"})
	if err == nil || err.Error() != "Topic 'a_b_c' collides with existing topics: a.b.c, a.b_c" {
		t.Fatalf("CheckTopicCollision (two) = %v", err)
	}
	if err := znodes.CheckTopicCollision("a_b", []string{"a_b", "c"}); err != nil {
		t.Fatalf("an exact duplicate is TopicExists, not a collision: %v", err)
	}
}

func TestInternalTopics(t *testing.T) {
	for _, name := range znodes.InternalTopics() {
		if !znodes.IsInternalTopic(name) {
			t.Errorf("%s should be internal", name)
		}
	}
	// Kafka 3.9's Topic.INTERNAL_TOPICS.
	if !reflect.DeepEqual(znodes.InternalTopics(), []string{"__consumer_offsets", "__transaction_state", "__share_group_state"}) {
		t.Fatalf("InternalTopics = %q", znodes.InternalTopics())
	}
	for _, name := range []string{"__cluster_metadata", "orders", "__consumer_offsets2", "__share_group_state2"} {
		if znodes.IsInternalTopic(name) {
			t.Errorf("%s should not be internal", name)
		}
	}
}
