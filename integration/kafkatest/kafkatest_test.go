package kafkatest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kzadmin/kzadmin/integration/kafka"
)

func TestKeepLogsCopiesEveryLogOfTheDirs(t *testing.T) {
	src := t.TempDir()
	for name, body := range map[string]string{"kzadmind-1.log": "one", "producer.log": "two", "notes.txt": "no"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst, err := KeepLogs{Pattern: "kafkatest-keep-", Dirs: []string{src}}.copy(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dst) })
	if !strings.HasPrefix(filepath.Base(dst), "kafkatest-keep-") {
		t.Errorf("logs kept in %s, want a kafkatest-keep-* directory", dst)
	}
	entries, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "kzadmind-1.log,producer.log" {
		t.Fatalf("kept %v, want the two *.log files", names)
	}
	if data, _ := os.ReadFile(filepath.Join(dst, "producer.log")); string(data) != "two" {
		t.Errorf("producer.log holds %q", data)
	}
}

// endedTB records what a helper registers and logs, and says the test
// failed or not, without failing the real one.
type endedTB struct {
	testing.TB
	failed   bool
	cleanups []func()
	logs     []string
}

func (tb *endedTB) Failed() bool     { return tb.failed }
func (tb *endedTB) Cleanup(f func()) { tb.cleanups = append(tb.cleanups, f) }
func (tb *endedTB) Logf(format string, a ...any) {
	tb.logs = append(tb.logs, fmt.Sprintf(format, a...))
}

// end runs the cleanups, last registered first, as testing does.
func (tb *endedTB) end() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}

func TestKeepLogsOnlyWhenFailedOrAsked(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "kzadmind-7.log"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	const env = "KAFKATEST_KEEP_LOGS_FOR_TEST"
	for _, c := range []struct {
		name              string
		pattern, envValue string
		failed, kept      bool
	}{
		{"passed", "kafkatest-keep-", "", false, false},
		{"failed", "kafkatest-keep-", "", true, true},
		{"passed, asked to keep", "kafkatest-keep-", "1", false, true},
		{"failed, keeping nothing", "", "", true, false},
	} {
		t.Setenv(env, c.envValue)
		k := KeepLogs{Env: env, Pattern: c.pattern, Dirs: []string{src}}
		tb := &endedTB{TB: t, failed: c.failed}
		k.register(tb, &kafka.Cluster{})
		tb.end()
		if !c.kept {
			if len(tb.logs) != 0 {
				t.Errorf("%s: logged %q, want nothing kept", c.name, tb.logs)
			}
			continue
		}
		dst, ok := strings.CutPrefix(strings.Join(tb.logs, "\n"), "logs kept in ")
		if !ok {
			t.Fatalf("%s: logged %q, want where the logs went", c.name, tb.logs)
		}
		t.Cleanup(func() { os.RemoveAll(dst) })
		if _, err := os.Stat(filepath.Join(dst, "kzadmind-7.log")); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestKeepLogsSkipsALogThatIsGone(t *testing.T) {
	dst, err := copyFiles("kafkatest-keep-", map[string]string{"broker-1.log": filepath.Join(t.TempDir(), "server.log")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dst) })
	if entries, _ := os.ReadDir(dst); len(entries) != 0 {
		t.Fatalf("kept %v of a log that does not exist", entries)
	}
}

func TestOnlineWantsLeaderAndFullISREverywhere(t *testing.T) {
	full := kadm.PartitionDetail{Leader: 1, Replicas: []int32{1, 2}, ISR: []int32{1, 2}}
	detail := func(ps ...kadm.PartitionDetail) kadm.TopicDetail {
		td := kadm.TopicDetail{Topic: "t", Partitions: kadm.PartitionDetails{}}
		for i, p := range ps {
			p.Partition = int32(i)
			td.Partitions[int32(i)] = p
		}
		return td
	}
	noLeader, shrunk, moving := full, full, full
	noLeader.Leader = -1
	shrunk.ISR = []int32{1}
	moving.Replicas = []int32{1, 2, 3}
	failed := kadm.TopicDetail{Topic: "t", Err: errors.New("UNKNOWN_TOPIC_OR_PARTITION")}
	for _, c := range []struct {
		name string
		td   kadm.TopicDetail
		want string // in the error; empty for online
	}{
		{"online", detail(full, full), ""},
		{"missing partition", detail(full), "1 partitions, want 2"},
		{"no leader", detail(full, noLeader), "t-1: leader -1"},
		{"ISR short", detail(shrunk, full), "t-0: leader 1, replicas [1 2], isr [1]"},
		{"reassigning", detail(full, moving), "replicas [1 2 3]"},
		{"topic error", failed, "UNKNOWN_TOPIC_OR_PARTITION"},
		{"absent", kadm.TopicDetail{}, "t: 0 partitions"},
	} {
		err := online("t", c.td, 2, 2)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: online = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestMetadataRequestAsksForAllTopicsWithNil(t *testing.T) {
	if req := metadataRequest(false, nil); req.Topics != nil || req.AllowAutoTopicCreation {
		t.Errorf("no topics: %+v, want a nil list (all topics) and no auto-creation", req)
	}
	req := metadataRequest(true, []string{"a", "b"})
	if len(req.Topics) != 2 || *req.Topics[1].Topic != "b" || !req.AllowAutoTopicCreation {
		t.Errorf("two topics with auto-creation: %+v", req)
	}
}
