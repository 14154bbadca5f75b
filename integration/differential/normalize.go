package differential

import (
	"cmp"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Run is what normalization needs to know of one run.
type Run struct {
	// Controller is the node id of the run's controller: a broker under
	// Kafka's own controller, kzadmind's node.id otherwise.
	Controller int32
	// Addrs maps every node's "host:port" (brokers and, for kzadmind's
	// run, kzadmind) to its node id.
	Addrs map[string]int32
}

// Placeholders stand for values that differ between runs by nature.
const (
	// ControllerPlaceholder replaces a ControllerID that names the
	// run's own controller; any other id (-1, a wrong broker) is kept.
	ControllerPlaceholder int32 = -1000
	// ControllerName replaces the controller's id where it is a string:
	// a config resource name, or in "expected <id>" of an error message.
	ControllerName = "<controller>"
	// ClusterIDPlaceholder replaces a non-null cluster id (each run's
	// chroot has its own).
	ClusterIDPlaceholder = "<cluster-id>"
)

// topicIDPlaceholder replaces every non-zero topic id, so that "zero vs
// non-zero" still shows.
var topicIDPlaceholder = [16]byte{15: 1}

// Normalize rewrites resp in place so that the two runs' answers can be
// compared field by field: what differs between runs by nature (throttle
// times, ids, addresses, the controller's id) becomes a placeholder, and
// the lists Kafka builds from hash maps are sorted.
func Normalize(resp kmsg.Response, run Run) {
	walkFields(reflect.ValueOf(resp), func(name string, v reflect.Value) {
		switch name {
		case "ThrottleMillis":
			v.SetInt(0)
		case "TopicID":
			maskTopicID(v)
		case "ErrorMessage":
			maskExpectedController(v, run.Controller)
		case "ResourceName":
			if v.String() == strconv.Itoa(int(run.Controller)) {
				v.SetString(ControllerName)
			}
		}
	})
	maskCluster(resp, run)
	maskServedAPIs(resp)
	sortUnordered(resp)
}

// maskServedAPIs drops the API list of a successful ApiVersions answer:
// kzadmind serves the admin APIs and a broker every other one too, by
// design (the README's table lists kzadmind's). The rest of the answer,
// the KIP-584 feature fields included, is compared. An error answer's
// list (ApiVersions' own range, for a version too new) is kept.
func maskServedAPIs(resp kmsg.Response) {
	if r, ok := resp.(*kmsg.ApiVersionsResponse); ok && r.ErrorCode == 0 {
		r.ApiKeys = nil
	}
}

// walkFields calls fn with every settable struct field reachable from v
// (through pointers, structs and slices), by field name.
func walkFields(v reflect.Value, fn func(name string, v reflect.Value)) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walkFields(v.Elem(), fn)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fn(v.Type().Field(i).Name, v.Field(i))
			walkFields(v.Field(i), fn)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkFields(v.Index(i), fn)
		}
	}
}

func maskTopicID(v reflect.Value) {
	if id, ok := v.Interface().([16]byte); ok && id != [16]byte{} {
		v.Set(reflect.ValueOf(topicIDPlaceholder))
	}
}

// expectedID is how Kafka's config APIs name the broker that answered:
// "Unexpected broker id, expected 2 or empty string, but received 7".
var expectedID = regexp.MustCompile(`\bexpected (-?\d+)\b`)

// maskExpectedController replaces the answering controller's id in such
// messages (a *string field), since it differs between runs.
func maskExpectedController(v reflect.Value, controller int32) {
	msg, ok := v.Interface().(*string)
	if !ok || msg == nil {
		return
	}
	id := strconv.Itoa(int(controller))
	out := expectedID.ReplaceAllStringFunc(*msg, func(m string) string {
		if expectedID.FindStringSubmatch(m)[1] == id {
			return "expected " + ControllerName
		}
		return m
	})
	v.Set(reflect.ValueOf(&out))
}

// maskCluster replaces the cluster id, the controller's id and the
// brokers' addresses in Metadata and DescribeCluster answers.
func maskCluster(resp kmsg.Response, run Run) {
	switch r := resp.(type) {
	case *kmsg.MetadataResponse:
		if r.ClusterID != nil {
			r.ClusterID = new(ClusterIDPlaceholder)
		}
		r.ControllerID = maskController(r.ControllerID, run.Controller)
		for i := range r.Brokers {
			b := &r.Brokers[i]
			b.Host, b.Port = addrName(b.Host, b.Port, run.Addrs), 0
		}
	case *kmsg.DescribeClusterResponse:
		if r.ClusterID != "" {
			r.ClusterID = ClusterIDPlaceholder
		}
		r.ControllerID = maskController(r.ControllerID, run.Controller)
		for i := range r.Brokers {
			b := &r.Brokers[i]
			b.Host, b.Port = addrName(b.Host, b.Port, run.Addrs), 0
		}
	}
}

func maskController(id, controller int32) int32 {
	if id == controller {
		return ControllerPlaceholder
	}
	return id
}

// addrName names an advertised address by the node that owns it in this
// run ("<addr of 2>"), so that an entry giving broker 2 broker 1's
// address still differs; an address no node owns is kept.
func addrName(host string, port int32, addrs map[string]int32) string {
	addr := host + ":" + strconv.Itoa(int(port))
	if id, ok := addrs[addr]; ok {
		return "<addr of " + strconv.Itoa(int(id)) + ">"
	}
	return addr
}

// sortUnordered sorts the lists whose order Kafka's ZooKeeper-mode code
// leaves to a Scala hash map or set (Metadata's brokers, topics and
// partitions; CreatePartitions, ElectLeaders and the reassignment and
// config-alter results), so that order is compared only where Kafka keeps
// the request's (CreateTopics, DeleteTopics, DescribeConfigs).
func sortUnordered(resp kmsg.Response) {
	switch r := resp.(type) {
	case *kmsg.MetadataResponse:
		slices.SortStableFunc(r.Brokers, func(a, b kmsg.MetadataResponseBroker) int { return cmp.Compare(a.NodeID, b.NodeID) })
		slices.SortStableFunc(r.Topics, func(a, b kmsg.MetadataResponseTopic) int { return cmpName(a.Topic, b.Topic) })
		for i := range r.Topics {
			slices.SortStableFunc(r.Topics[i].Partitions, func(a, b kmsg.MetadataResponseTopicPartition) int {
				return cmp.Compare(a.Partition, b.Partition)
			})
		}
	case *kmsg.DescribeClusterResponse:
		slices.SortStableFunc(r.Brokers, func(a, b kmsg.DescribeClusterResponseBroker) int { return cmp.Compare(a.NodeID, b.NodeID) })
	case *kmsg.CreatePartitionsResponse:
		slices.SortStableFunc(r.Topics, func(a, b kmsg.CreatePartitionsResponseTopic) int { return cmp.Compare(a.Topic, b.Topic) })
	case *kmsg.ElectLeadersResponse:
		slices.SortStableFunc(r.Topics, func(a, b kmsg.ElectLeadersResponseTopic) int { return cmp.Compare(a.Topic, b.Topic) })
		for i := range r.Topics {
			slices.SortStableFunc(r.Topics[i].Partitions, func(a, b kmsg.ElectLeadersResponseTopicPartition) int {
				return cmp.Compare(a.Partition, b.Partition)
			})
		}
	default:
		sortMoreUnordered(resp)
	}
	sortConfigs(resp)
}

// sortConfigs sorts config entries by name. Kafka lists a topic's or a
// broker's configs in the order of a Scala mutable.Map (ConfigHelper's
// allConfigs: config.originals ++ config.nonInternalValues), a hash
// order that means nothing; synonyms keep their order, which is
// precedence.
func sortConfigs(resp kmsg.Response) {
	switch r := resp.(type) {
	case *kmsg.CreateTopicsResponse:
		for i := range r.Topics {
			slices.SortStableFunc(r.Topics[i].Configs, func(a, b kmsg.CreateTopicsResponseTopicConfig) int { return cmp.Compare(a.Name, b.Name) })
		}
	case *kmsg.DescribeConfigsResponse:
		for i := range r.Resources {
			slices.SortStableFunc(r.Resources[i].Configs, func(a, b kmsg.DescribeConfigsResponseResourceConfig) int { return cmp.Compare(a.Name, b.Name) })
		}
	}
}

// sortMoreUnordered is sortUnordered for the reassignment and config-alter
// answers.
func sortMoreUnordered(resp kmsg.Response) {
	switch r := resp.(type) {
	case *kmsg.AlterPartitionAssignmentsResponse:
		slices.SortStableFunc(r.Topics, func(a, b kmsg.AlterPartitionAssignmentsResponseTopic) int { return cmp.Compare(a.Topic, b.Topic) })
		for i := range r.Topics {
			slices.SortStableFunc(r.Topics[i].Partitions, func(a, b kmsg.AlterPartitionAssignmentsResponseTopicPartition) int {
				return cmp.Compare(a.Partition, b.Partition)
			})
		}
	case *kmsg.ListPartitionReassignmentsResponse:
		slices.SortStableFunc(r.Topics, func(a, b kmsg.ListPartitionReassignmentsResponseTopic) int { return cmp.Compare(a.Topic, b.Topic) })
		for i := range r.Topics {
			slices.SortStableFunc(r.Topics[i].Partitions, func(a, b kmsg.ListPartitionReassignmentsResponseTopicPartition) int {
				return cmp.Compare(a.Partition, b.Partition)
			})
		}
	case *kmsg.AlterConfigsResponse:
		slices.SortStableFunc(r.Resources, func(a, b kmsg.AlterConfigsResponseResource) int {
			return cmp.Or(cmp.Compare(a.ResourceType, b.ResourceType), cmp.Compare(a.ResourceName, b.ResourceName))
		})
	case *kmsg.IncrementalAlterConfigsResponse:
		slices.SortStableFunc(r.Resources, func(a, b kmsg.IncrementalAlterConfigsResponseResource) int {
			return cmp.Or(cmp.Compare(a.ResourceType, b.ResourceType), cmp.Compare(a.ResourceName, b.ResourceName))
		})
	default:
		sortQuotaAnswers(resp)
	}
}

// sortQuotaAnswers sorts the client quota and SCRAM answers Kafka builds
// from hash maps: the quota entries by entity and their values by key,
// and the SCRAM alter results by user (a describe keeps the request's
// order, or sorts the users itself).
func sortQuotaAnswers(resp kmsg.Response) {
	switch r := resp.(type) {
	case *kmsg.DescribeClientQuotasResponse:
		for i := range r.Entries {
			slices.SortStableFunc(r.Entries[i].Values, func(a, b kmsg.DescribeClientQuotasResponseEntryValue) int { return cmp.Compare(a.Key, b.Key) })
		}
		slices.SortStableFunc(r.Entries, func(a, b kmsg.DescribeClientQuotasResponseEntry) int {
			return cmp.Compare(quotaEntityKey(a.Entity), quotaEntityKey(b.Entity))
		})
	case *kmsg.AlterClientQuotasResponse:
		slices.SortStableFunc(r.Entries, func(a, b kmsg.AlterClientQuotasResponseEntry) int {
			return cmp.Compare(quotaEntityKey(a.Entity), quotaEntityKey(b.Entity))
		})
	case *kmsg.AlterUserSCRAMCredentialsResponse:
		slices.SortStableFunc(r.Results, func(a, b kmsg.AlterUserSCRAMCredentialsResponseResult) int { return cmp.Compare(a.User, b.User) })
	}
}

// quotaEntityKey names a quota entity ("type=name,...", <default> for a
// null name) whatever the struct that holds it.
func quotaEntityKey[E kmsg.DescribeClientQuotasResponseEntryEntity | kmsg.AlterClientQuotasResponseEntryEntity](parts []E) string {
	var b strings.Builder
	for _, p := range parts {
		typ, name := quotaPartOf(p)
		n := "<default>"
		if name != nil {
			n = *name
		}
		b.WriteString(typ + "=" + n + ",")
	}
	return b.String()
}

func quotaPartOf[E kmsg.DescribeClientQuotasResponseEntryEntity | kmsg.AlterClientQuotasResponseEntryEntity](p E) (string, *string) {
	switch v := any(p).(type) {
	case kmsg.DescribeClientQuotasResponseEntryEntity:
		return v.Type, v.Name
	case kmsg.AlterClientQuotasResponseEntryEntity:
		return v.Type, v.Name
	}
	return "", nil
}

// cmpName orders nullable names, null first.
func cmpName(a, b *string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// MaskPlacement hides where Kafka's placement put the replicas of the
// named topics, which it starts at a random broker: the replica, ISR and
// offline lists keep their lengths (each id becomes 0), and a leader
// keeps only whether there is one (0) or not (-1).
func MaskPlacement(r *kmsg.MetadataResponse, topics []string) {
	for i := range r.Topics {
		t := &r.Topics[i]
		if t.Topic == nil || !slices.Contains(topics, *t.Topic) {
			continue
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			p.Replicas, p.ISR = zeroed(p.Replicas), zeroed(p.ISR)
			p.OfflineReplicas = zeroed(p.OfflineReplicas)
			p.Leader = min(p.Leader, 0)
		}
	}
}

func zeroed(ids []int32) []int32 {
	if ids == nil {
		return nil
	}
	return make([]int32, len(ids))
}

// NamesOnly keeps only the names of Metadata's topics, for all-topics
// answers whose topics the earlier cases made with automatic placement.
func NamesOnly(r *kmsg.MetadataResponse) {
	for i, t := range r.Topics {
		r.Topics[i] = kmsg.MetadataResponseTopic{Topic: t.Topic}
	}
}
