package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// parseReplicaAssignment reads kafka-topics' --replica-assignment: lists of
// broker ids separated by ':' for each partition, partitions separated by
// ',' ("1:2,2:3" is partition 0 on 1 and 2, partition 1 on 2 and 3).
func parseReplicaAssignment(s string) ([][]int32, error) {
	var out [][]int32
	for i, part := range strings.Split(s, ",") {
		var replicas []int32
		for _, id := range strings.Split(part, ":") {
			n, err := strconv.ParseInt(strings.TrimSpace(id), 10, 32)
			if err != nil {
				return nil, usagef("--replica-assignment %q: partition %d: %q is not a broker id", s, i, id)
			}
			replicas = append(replicas, int32(n))
		}
		out = append(out, replicas)
	}
	return out, nil
}

// parseBrokerList reads "1,2,3".
func parseBrokerList(flag, s string) ([]int32, error) {
	var out []int32
	for _, id := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(id), 10, 32)
		if err != nil {
			return nil, usagef("%s %q: %q is not a broker id", flag, s, id)
		}
		out = append(out, int32(n))
	}
	return out, nil
}

// parseConfigPairs reads kafka-topics' repeated --config name=value.
func parseConfigPairs(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--config %q: want name=value", p)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

// parseAddConfig reads kafka-configs' --add-config "k1=v1,k2=[v2,v3]": it
// splits at commas outside square brackets, so list values can be given.
func parseAddConfig(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range splitOutsideBrackets(s) {
		if strings.TrimSpace(item) == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--add-config %q: %q is not name=value", s, item)
		}
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			v = v[1 : len(v)-1]
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

func splitOutsideBrackets(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// parseNames reads comma-separated names (--delete-config k1,k2).
func parseNames(values []string) []string {
	var out []string
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// topicMatcher is kafka-topics' --topic: a regular expression that must
// match the whole name (Java's Pattern.matches); empty matches all.
func topicMatcher(pattern string) (func(string) bool, error) {
	if pattern == "" {
		return func(string) bool { return true }, nil
	}
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return nil, usagef("--topic %q: %v", pattern, err)
	}
	return re.MatchString, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
