package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// The JSON formats of kafka-reassign-partitions.sh.

// topicsToMove is --topics-to-move-json-file: {"topics":[{"topic":"foo"}],"version":1}.
type topicsToMove struct {
	Version int `json:"version"`
	Topics  []struct {
		Topic string `json:"topic"`
	} `json:"topics"`
}

// planFile is a reassignment plan:
// {"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}]}.
type planFile struct {
	Version    int         `json:"version"`
	Partitions []planEntry `json:"partitions"`
}

type planEntry struct {
	Topic     string   `json:"topic"`
	Partition int32    `json:"partition"`
	Replicas  []int32  `json:"replicas"`
	LogDirs   []string `json:"log_dirs,omitempty"`
}

// planJSON renders moves in Kafka's format, one line, log_dirs all "any".
func planJSON(moves []backend.Reassignment) string {
	p := planFile{Version: 1, Partitions: []planEntry{}}
	for _, m := range moves {
		dirs := make([]string, len(m.Replicas))
		for i := range dirs {
			dirs[i] = "any"
		}
		p.Partitions = append(p.Partitions, planEntry{Topic: m.Topic, Partition: m.Partition, Replicas: m.Replicas, LogDirs: dirs})
	}
	b, _ := json.Marshal(p)
	return string(b)
}

func readJSONFile(flag, path string, v any) error {
	if path == "" {
		return usagef("%s is required", flag)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return usagef("%s: %v", flag, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return usagef("%s %s: not valid JSON: %v", flag, path, err)
	}
	return nil
}

// readTopicsToMove reads --topics-to-move-json-file.
func readTopicsToMove(path string) ([]string, error) {
	var f topicsToMove
	if err := readJSONFile("--topics-to-move-json-file", path, &f); err != nil {
		return nil, err
	}
	if f.Version != 1 {
		return nil, usagef("--topics-to-move-json-file %s: version %d is not supported (want 1)", path, f.Version)
	}
	var out []string
	for _, t := range f.Topics {
		if t.Topic == "" {
			return nil, usagef("--topics-to-move-json-file %s: an entry has no \"topic\"", path)
		}
		out = append(out, t.Topic)
	}
	if len(out) == 0 {
		return nil, usagef("--topics-to-move-json-file %s lists no topics", path)
	}
	return out, nil
}

// readPlan reads --reassignment-json-file: the partitions' target
// replicas, and the replicas whose log_dirs entry names a directory rather
// than "any" (moves between log directories, which need the brokers:
// --bootstrap-server).
func readPlan(path string) ([]backend.Reassignment, []backend.ReplicaLogDir, error) {
	var f planFile
	if err := readJSONFile("--reassignment-json-file", path, &f); err != nil {
		return nil, nil, err
	}
	if f.Version != 1 {
		return nil, nil, usagef("--reassignment-json-file %s: version %d is not supported (want 1)", path, f.Version)
	}
	if len(f.Partitions) == 0 {
		return nil, nil, usagef("--reassignment-json-file %s lists no partitions", path)
	}
	out := make([]backend.Reassignment, 0, len(f.Partitions))
	var dirs []backend.ReplicaLogDir
	for i, p := range f.Partitions {
		if p.Topic == "" {
			return nil, nil, usagef("--reassignment-json-file %s: partition entry %d has no \"topic\"", path, i)
		}
		if len(p.LogDirs) > 0 && len(p.LogDirs) != len(p.Replicas) {
			return nil, nil, usagef("--reassignment-json-file %s: %s-%d has %d log_dirs for %d replicas", path, p.Topic, p.Partition,
				len(p.LogDirs), len(p.Replicas))
		}
		for j, d := range p.LogDirs {
			switch d {
			case "any":
			case "":
				return nil, nil, usagef("--reassignment-json-file %s: %s-%d: log_dirs entry %d is empty (a directory, or \"any\")",
					path, p.Topic, p.Partition, j)
			default:
				dirs = append(dirs, backend.ReplicaLogDir{Topic: p.Topic, Partition: p.Partition, Broker: p.Replicas[j], Dir: d})
			}
		}
		out = append(out, backend.Reassignment{Topic: p.Topic, Partition: p.Partition, Replicas: p.Replicas})
	}
	return out, dirs, nil
}

// readElectionPartitions reads kafka-leader-election's --path-to-json-file:
// {"partitions":[{"topic":"foo","partition":1}]}.
func readElectionPartitions(path string) ([]backend.TopicPartition, error) {
	var f struct {
		Partitions []struct {
			Topic     *string `json:"topic"`
			Partition *int32  `json:"partition"`
		} `json:"partitions"`
	}
	if err := readJSONFile("--path-to-json-file", path, &f); err != nil {
		return nil, err
	}
	var out []backend.TopicPartition
	for i, p := range f.Partitions {
		if p.Topic == nil || p.Partition == nil {
			return nil, usagef("--path-to-json-file %s: entry %d needs \"topic\" and \"partition\"", path, i)
		}
		out = append(out, backend.TopicPartition{Topic: *p.Topic, Partition: *p.Partition})
	}
	if len(out) == 0 {
		return nil, usagef("--path-to-json-file %s lists no partitions", path)
	}
	return out, nil
}

// moveNames lists moves as "foo-0,foo-1".
func moveNames(moves []backend.Reassignment) string {
	names := make([]string, len(moves))
	for i, m := range moves {
		names[i] = fmt.Sprintf("%s-%d", m.Topic, m.Partition)
	}
	return strings.Join(names, ",")
}

// tpNames lists partitions as "foo-0,foo-1".
func tpNames(tps []backend.TopicPartition) string {
	names := make([]string, len(tps))
	for i, tp := range tps {
		names[i] = tp.String()
	}
	return strings.Join(names, ",")
}
