package znodes_test

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// Property tests: random but valid payload values, built the way callers
// build them, must survive Encode then Decode unchanged, and Encode must be
// deterministic. The generator is seeded, so failures reproduce.

const propertyRounds = 300

type gen struct{ r *rand.Rand }

func newGen(seed uint64) gen { return gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

func (g gen) int32() int32 {
	switch g.r.IntN(4) {
	case 0:
		return int32(g.r.IntN(10))
	case 1:
		return -1
	case 2:
		return int32(g.r.Uint32())
	}
	return [...]int32{-2147483648, 2147483647, 0}[g.r.IntN(3)]
}

func (g gen) int32s(max int) []int32 {
	n := g.r.IntN(max + 1)
	if n == 0 {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = g.int32()
	}
	return out
}

// text returns strings that stress the writer: quotes, backslashes,
// control characters, HTML characters, non-ASCII and astral code points.
func (g gen) text() string {
	const alphabet = "ab.-_ \"\\/<>&\n\t\x00\x1f\x7fé€\u2028😀:,{}[]="
	runes := []rune(alphabet)
	n := g.r.IntN(12)
	out := make([]rune, n)
	for i := range out {
		out[i] = runes[g.r.IntN(len(runes))]
	}
	return string(out)
}

func (g gen) unknown(known ...string) map[string]json.RawMessage {
	if g.r.IntN(3) != 0 {
		return nil
	}
	values := []string{`1`, `"s"`, `null`, `true`, `[1,{"a":[]}]`, `{"k":"v","n":-1.5e3}`, `"\u00e9<>"`}
	m := make(map[string]json.RawMessage)
	for i := g.r.IntN(3) + 1; i > 0; i-- {
		k := g.text()
		if contains(known, k) {
			continue
		}
		m[k] = json.RawMessage(values[g.r.IntN(len(values))])
	}
	return m
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (g gen) uuid() znodes.UUID {
	var u znodes.UUID
	for i := range u {
		u[i] = byte(g.r.UintN(256))
	}
	if u.IsZero() {
		u[0] = 1
	}
	return u
}

func (g gen) replicaMap(allowEmptyLists bool) map[int32][]int32 {
	n := g.r.IntN(5)
	if n == 0 {
		return nil
	}
	m := make(map[int32][]int32)
	for i := 0; i < n; i++ {
		l := g.int32s(4)
		if l == nil && !allowEmptyLists {
			l = []int32{g.int32()}
		}
		m[int32(g.r.IntN(20))] = l
	}
	return m
}

func TestPropertyTopicAssignment(t *testing.T) {
	g := newGen(1)
	decode := func(b []byte) (znodes.TopicAssignment, error) { return znodes.DecodeTopicAssignment("t", b) }
	for i := 0; i < propertyRounds; i++ {
		a := znodes.TopicAssignment{
			Version:          3,
			Partitions:       g.replicaMap(true),
			AddingReplicas:   g.replicaMap(false),
			RemovingReplicas: g.replicaMap(false),
			Unknown:          g.unknown("version", "partitions", "adding_replicas", "removing_replicas", "topic_id"),
		}
		if g.r.IntN(2) == 0 {
			a.TopicID = g.uuid()
		}
		assertDeterministic(t, a)
		roundTrip(t, a, decode)
	}
}

func TestPropertyPartitionState(t *testing.T) {
	g := newGen(2)
	decode := func(b []byte) (znodes.PartitionState, error) { return znodes.DecodePartitionState("t", 1, b) }
	for i := 0; i < propertyRounds; i++ {
		s := znodes.PartitionState{
			Version: 1, Leader: g.int32(), LeaderEpoch: g.int32(), ISR: g.int32s(5), ControllerEpoch: g.int32(),
			LeaderRecoveryState:    znodes.LeaderRecoveryState(g.r.IntN(2)),
			EligibleLeaderReplicas: g.int32s(3), LastKnownELR: g.int32s(2), ELRMinISR: g.int32(),
			Unknown: g.unknown("version", "leader", "leader_epoch", "isr", "controller_epoch",
				"leader_recovery_state", "eligible_leader_replicas", "last_known_elr", "elr_min_isr"),
		}
		assertDeterministic(t, s)
		roundTrip(t, s, decode)
	}
}

func (g gen) endpoints() []znodes.Endpoint {
	protocols := []string{znodes.ProtocolPlaintext, znodes.ProtocolSSL, znodes.ProtocolSASLPlaintext, znodes.ProtocolSASLSSL}
	hosts := []string{"", "b1.example.com", "10.0.0.1", "::1", "fe80::1%eth0", "h_1-x"}
	var out []znodes.Endpoint
	for i := g.r.IntN(4); i > 0; i-- {
		out = append(out, znodes.Endpoint{
			Listener:         "L" + strconv.Itoa(len(out)) + "_" + [...]string{"A", "INTERNAL", "X-Y"}[g.r.IntN(3)],
			Host:             hosts[g.r.IntN(len(hosts))],
			Port:             g.int32(),
			SecurityProtocol: protocols[g.r.IntN(len(protocols))],
		})
	}
	return out
}

func TestPropertyBrokerRegistration(t *testing.T) {
	g := newGen(3)
	decode := func(b []byte) (znodes.BrokerRegistration, error) { return znodes.DecodeBrokerRegistration(9, b) }
	for i := 0; i < propertyRounds; i++ {
		var rack *string
		if g.r.IntN(2) == 0 {
			rack = ptr(g.text())
		}
		b := znodes.BrokerRegistration{
			Version: 5, Host: g.text(), Port: g.int32(), JMXPort: g.int32(), Timestamp: g.text(),
			Endpoints: g.endpoints(), Rack: rack,
			Unknown: g.unknown("version", "host", "port", "jmx_port", "timestamp", "endpoints",
				"listener_security_protocol_map", "rack", "features"),
		}
		if g.r.IntN(4) == 0 {
			b.Features = map[string]znodes.SupportedVersionRange{g.text(): {Min: 0, Max: int16(g.r.IntN(100))}}
		}
		assertDeterministic(t, b)
		roundTrip(t, b, decode)
	}
}

func TestPropertyEntityConfig(t *testing.T) {
	g := newGen(4)
	decode := func(b []byte) (znodes.EntityConfig, error) { return znodes.DecodeEntityConfig("users", "u", b) }
	for i := 0; i < propertyRounds; i++ {
		c := znodes.EntityConfig{Version: 1, Unknown: g.unknown("version", "config")}
		for j := g.r.IntN(5); j > 0; j-- {
			if c.Config == nil {
				c.Config = make(map[string]string)
			}
			c.Config[g.text()] = g.text()
		}
		assertDeterministic(t, c)
		roundTrip(t, c, decode)
	}
}

func TestPropertySmallPayloads(t *testing.T) {
	g := newGen(5)
	change := func(b []byte) (znodes.ConfigChangeNotification, error) {
		return znodes.DecodeConfigChangeNotification("", b)
	}
	isr := func(b []byte) (znodes.IsrChangeNotification, error) { return znodes.DecodeIsrChangeNotification("", b) }
	types := znodes.ConfigEntityTypes()
	for i := 0; i < propertyRounds; i++ {
		roundTrip(t, znodes.ClusterID{ID: g.text()}, znodes.DecodeClusterID)
		roundTrip(t, znodes.ControllerRegistration{Version: 2, BrokerID: g.int32(), Timestamp: g.text(),
			KRaftControllerEpoch: g.int32()}, znodes.DecodeControllerRegistration)
		roundTrip(t, znodes.NewConfigChangeNotification(types[g.r.IntN(len(types))], g.text()), change)
		var tps []znodes.TopicPartition
		for j := g.r.IntN(4); j > 0; j-- {
			tps = append(tps, znodes.TopicPartition{Topic: g.text(), Partition: g.int32()})
		}
		roundTrip(t, znodes.IsrChangeNotification{Version: 1, Partitions: tps}, isr)
		roundTrip(t, znodes.PreferredReplicaElection{Version: 1, Partitions: tps}, znodes.DecodePreferredReplicaElection)
		start := int64(g.r.Uint64() >> 2)
		roundTrip(t, znodes.ProducerIDBlock{Version: 1, BrokerID: g.int32(), Start: start, End: start + int64(g.r.IntN(5000))},
			znodes.DecodeProducerIDBlock)
		epoch := g.int32()
		if got, err := znodes.DecodeControllerEpoch(znodes.EncodeControllerEpoch(epoch)); err != nil || got != epoch {
			t.Fatalf("controller epoch %d: %d, %v", epoch, got, err)
		}
	}
}

func TestPropertySanitize(t *testing.T) {
	g := newGen(6)
	for i := 0; i < propertyRounds; i++ {
		name := g.text()
		s := znodes.SanitizeEntityName(name)
		for j := 0; j < len(s); j++ {
			c := s[j]
			ok := c == '%' || c == '.' || c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
			if !ok {
				t.Fatalf("SanitizeEntityName(%q) = %q contains %q", name, s, c)
			}
		}
		back, err := znodes.DesanitizeEntityName(s)
		if err != nil || back != name {
			t.Fatalf("Desanitize(Sanitize(%q)) = %q, %v", name, back, err)
		}
	}
}

// assertDeterministic encodes v twice (map iteration order varies between
// runs of a range loop) and requires identical bytes.
func assertDeterministic(t *testing.T, v encoder) {
	t.Helper()
	a, err1 := v.Encode()
	b, err2 := v.Encode()
	if err1 != nil || err2 != nil || string(a) != string(b) {
		t.Fatalf("Encode not deterministic: %s vs %s (%v, %v)", a, b, err1, err2)
	}
}
