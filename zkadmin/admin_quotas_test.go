package zkadmin

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

func user(n string) QuotaEntityPart   { return QuotaEntityPart{Type: QuotaUser, Name: n} }
func client(n string) QuotaEntityPart { return QuotaEntityPart{Type: QuotaClientID, Name: n} }
func ip(n string) QuotaEntityPart     { return QuotaEntityPart{Type: QuotaIP, Name: n} }
func byDefault(typ string) QuotaEntityPart {
	return QuotaEntityPart{Type: typ, Default: true}
}
func setQ(k string, v float64) QuotaChange { return QuotaChange{Key: k, Value: v} }

// quotaList renders entries as "entity{k=v,...}" lines.
func quotaList(es []QuotaEntry) []string {
	var out []string
	for _, e := range es {
		var vs []string
		for _, k := range slices.Sorted(maps.Keys(e.Values)) {
			vs = append(vs, fmt.Sprintf("%s=%v", k, e.Values[k]))
		}
		out = append(out, e.Entity.String()+"{"+strings.Join(vs, ",")+"}")
	}
	return out
}

// TestClientQuotas: quotas are written where Kafka keeps them, with their
// change notifications, described through every kind of filter, refused
// without a write, and removed with the znodes Kafka removes.
func TestClientQuotas(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	alter := func(entity QuotaEntity, changes ...QuotaChange) {
		t.Helper()
		if err := e.admin.AlterClientQuotas(e.ctx, entity, changes, false); err != nil {
			t.Fatalf("alter %s: %v", entity, err)
		}
	}
	alter(QuotaEntity{user("alice")}, setQ("producer_byte_rate", 1024), setQ("request_percentage", 12.5))
	alter(QuotaEntity{client("app 1")}, setQ("controller_mutation_rate", 10))
	alter(QuotaEntity{client("app 1"), user("alice")}, setQ("consumer_byte_rate", 2048.0000001))
	alter(QuotaEntity{byDefault(QuotaUser)}, setQ("producer_byte_rate", 100))
	alter(QuotaEntity{user("CN=bob,O=x*"), byDefault(QuotaClientID)}, setQ("consumer_byte_rate", 7))
	alter(QuotaEntity{ip("127.0.0.1")}, setQ("connection_creation_rate", 5))
	alter(QuotaEntity{byDefault(QuotaIP)}, setQ("connection_creation_rate", 50))

	for path, want := range map[string]string{
		"/config/users/alice":                                 `{"version":1,"config":{"producer_byte_rate":"1024","request_percentage":"12.5"}}`,
		"/config/clients/app%201":                             `{"version":1,"config":{"controller_mutation_rate":"10.0"}}`,
		"/config/users/alice/clients/app%201":                 `{"version":1,"config":{"consumer_byte_rate":"2048"}}`,
		"/config/users/<default>":                             `{"version":1,"config":{"producer_byte_rate":"100"}}`,
		"/config/users/CN%3Dbob%2CO%3Dx%2A/clients/<default>": `{"version":1,"config":{"consumer_byte_rate":"7"}}`,
		"/config/ips/127.0.0.1":                               `{"version":1,"config":{"connection_creation_rate":"5"}}`,
	} {
		if got := string(e.get(path)); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	kids, _, err := e.zk.Children(e.ctx, znodes.ConfigChangesPath)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, k := range kids {
		n, err := znodes.DecodeConfigChangeNotification(k, e.get(znodes.ConfigChangePath(k)))
		if err != nil {
			t.Fatal(err)
		}
		notes = append(notes, n.EntityPath())
	}
	slices.Sort(notes)
	wantNotes := []string{"clients/app%201", "ips/127.0.0.1", "ips/<default>", "users/<default>", "users/CN%3Dbob%2CO%3Dx%2A/clients/<default>",
		"users/alice", "users/alice/clients/app%201"}
	if !slices.Equal(notes, wantNotes) {
		t.Errorf("notifications %v, want %v", notes, wantNotes)
	}

	describe := func(strict bool, cs ...QuotaFilterComponent) []string {
		t.Helper()
		es, err := e.admin.DescribeClientQuotas(e.ctx, QuotaFilter{Components: cs, Strict: strict})
		if err != nil {
			t.Fatalf("describe %+v: %v", cs, err)
		}
		return quotaList(es)
	}
	exactly := func(typ, name string) QuotaFilterComponent {
		return QuotaFilterComponent{EntityType: typ, Match: QuotaMatchExact, Name: name}
	}
	def := func(typ string) QuotaFilterComponent {
		return QuotaFilterComponent{EntityType: typ, Match: QuotaMatchDefault}
	}
	anyOf := func(typ string) QuotaFilterComponent {
		return QuotaFilterComponent{EntityType: typ, Match: QuotaMatchAny}
	}
	const (
		alice      = "user=alice{producer_byte_rate=1024,request_percentage=12.5}"
		defUser    = "user=<default>{producer_byte_rate=100}"
		app        = "client-id=app 1{controller_mutation_rate=10}"
		aliceApp   = "user=alice,client-id=app 1{consumer_byte_rate=2048}"
		bobDefault = "user=CN=bob,O=x*,client-id=<default>{consumer_byte_rate=7}"
		defIP      = "ip=<default>{connection_creation_rate=50}"
		localIP    = "ip=127.0.0.1{connection_creation_rate=5}"
	)
	for _, tc := range []struct {
		name   string
		strict bool
		cs     []QuotaFilterComponent
		want   []string
	}{
		{"everything", false, nil, []string{defUser, alice, app, bobDefault, aliceApp, defIP, localIP}},
		{"strict nothing", true, nil, nil},
		{"user alice", false, []QuotaFilterComponent{exactly(QuotaUser, "alice")}, []string{alice, aliceApp}},
		{"user alice only", true, []QuotaFilterComponent{exactly(QuotaUser, "alice")}, []string{alice}},
		{"default user only", true, []QuotaFilterComponent{def(QuotaUser)}, []string{defUser}},
		{"any user", true, []QuotaFilterComponent{anyOf(QuotaUser)}, []string{defUser, alice}},
		{"any client", true, []QuotaFilterComponent{anyOf(QuotaClientID)}, []string{app}},
		{"users with clients", true, []QuotaFilterComponent{anyOf(QuotaUser), anyOf(QuotaClientID)}, []string{bobDefault, aliceApp}},
		{"alice and app", true, []QuotaFilterComponent{exactly(QuotaClientID, "app 1"), exactly(QuotaUser, "alice")}, []string{aliceApp}},
		{"default clients", false, []QuotaFilterComponent{def(QuotaClientID)}, []string{bobDefault}},
		{"sanitized user", false, []QuotaFilterComponent{exactly(QuotaUser, "CN=bob,O=x*")}, []string{bobDefault}},
		{"no such user", false, []QuotaFilterComponent{exactly(QuotaUser, "zed")}, nil},
		{"empty name", false, []QuotaFilterComponent{exactly(QuotaUser, "")}, nil},
		{"any ip", false, []QuotaFilterComponent{anyOf(QuotaIP)}, []string{defIP, localIP}},
		{"one ip", true, []QuotaFilterComponent{exactly(QuotaIP, "127.0.0.1")}, []string{localIP}},
	} {
		if got := describe(tc.strict, tc.cs...); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}

	// Refusals write nothing.
	for _, tc := range []struct {
		entity  QuotaEntity
		changes []QuotaChange
		msg     string
	}{
		{nil, nil, "Invalid empty client quota entity"},
		{QuotaEntity{{Type: "group", Name: "g"}}, nil, "Unhandled client quota entity type: group"},
		{QuotaEntity{user("")}, nil, "Empty user not supported"},
		{QuotaEntity{ip("10.0.0.1"), user("carol")}, nil, "IP entity should not be used with user/client ID entity"},
		{QuotaEntity{client("c")}, []QuotaChange{setQ("producer_byte_rate", 1.5)}, "Configuration producer_byte_rate must be a LONG value"},
		{QuotaEntity{client("c")}, []QuotaChange{setQ("retention.ms", 1)}, "Invalid configuration key retention.ms"},
		{QuotaEntity{user("c")}, []QuotaChange{setQ("SCRAM-SHA-256", 1)}, "AlterUserScramCredentials"},
		{QuotaEntity{ip("10.0.0.2")}, []QuotaChange{setQ("producer_byte_rate", 1)}, "Invalid configuration key producer_byte_rate"},
		{QuotaEntity{ip("10.0.0.2")}, []QuotaChange{setQ("connection_creation_rate", -1)}, "Configuration connection_creation_rate must be a INT value"},
		{QuotaEntity{ip("not a host")}, []QuotaChange{setQ("connection_creation_rate", 1)}, "not%20a%20host is not a valid IP or resolvable host."},
		// As in Kafka, the sanitized name is checked: brokers read it back.
		{QuotaEntity{ip("::1")}, []QuotaChange{setQ("connection_creation_rate", 1)}, "%3A%3A1 is not a valid IP or resolvable host."},
	} {
		before := e.snapshot()
		err := e.admin.AlterClientQuotas(e.ctx, tc.entity, tc.changes, false)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %+v: %v, want %q", tc.entity, tc.changes, err, tc.msg)
		}
		sameSnapshot(t, before, e.snapshot())
	}
	for _, tc := range []struct {
		f    QuotaFilter
		code int16
		msg  string
	}{
		{QuotaFilter{Components: []QuotaFilterComponent{anyOf(QuotaUser), exactly(QuotaUser, "x")}}, CodeInvalidRequest, "Duplicate user filter component entity type"},
		{QuotaFilter{Components: []QuotaFilterComponent{anyOf(QuotaClientID), anyOf(QuotaClientID)}}, CodeInvalidRequest, "Duplicate client filter component entity type"},
		{QuotaFilter{Components: []QuotaFilterComponent{anyOf("group")}}, CodeUnsupportedVersion, "Custom entity type 'group' not supported"},
		{QuotaFilter{Components: []QuotaFilterComponent{anyOf("")}}, CodeInvalidRequest, "Unexpected empty filter component entity type"},
		{QuotaFilter{Components: []QuotaFilterComponent{anyOf(QuotaIP), anyOf(QuotaUser)}}, CodeInvalidRequest, "IP filter component should not be used"},
		{QuotaFilter{Components: []QuotaFilterComponent{{EntityType: QuotaUser, Match: 7}}}, CodeInvalidRequest, "Unexpected match type: 7"},
	} {
		_, err := e.admin.DescribeClientQuotas(e.ctx, tc.f)
		if ae := wantKind(t, err, KindInvalidRequest, tc.msg); ae != nil && ae.Code != tc.code {
			t.Errorf("%+v: code %d, want %d", tc.f, ae.Code, tc.code)
		}
	}

	// validateOnly writes nothing, not even a notification.
	before := e.snapshot()
	if err := e.admin.AlterClientQuotas(e.ctx, QuotaEntity{user("dave")}, []QuotaChange{setQ("producer_byte_rate", 1)}, true); err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, e.snapshot())

	// Removing alice+app's last quota removes its znode and the clients
	// znode (alice keeps her own quotas); removing the default client of
	// bob, who has no config, removes bob's znode too.
	alter(QuotaEntity{user("alice"), client("app 1")}, QuotaChange{Key: "consumer_byte_rate", Remove: true})
	if e.exists("/config/users/alice/clients") || !e.exists("/config/users/alice") {
		t.Error("alice's clients znode kept, or alice's own removed")
	}
	alter(QuotaEntity{user("CN=bob,O=x*"), byDefault(QuotaClientID)}, QuotaChange{Key: "consumer_byte_rate", Remove: true})
	if e.exists("/config/users/CN%3Dbob%2CO%3Dx%2A") {
		t.Error("bob's empty user znode kept")
	}
	// An entity with children keeps its znode, emptied.
	alter(QuotaEntity{user("erin"), client("c")}, setQ("producer_byte_rate", 1))
	alter(QuotaEntity{user("erin")}, setQ("producer_byte_rate", 2))
	alter(QuotaEntity{user("erin")}, QuotaChange{Key: "producer_byte_rate", Remove: true})
	if got := string(e.get("/config/users/erin")); got != `{"version":1,"config":{}}` {
		t.Errorf("erin = %s, want an empty config", got)
	}
	if got := describe(false, exactly(QuotaUser, "erin")); !slices.Equal(got, []string{"user=erin,client-id=c{producer_byte_rate=1}"}) {
		t.Errorf("erin: %q", got)
	}
}

// TestClientQuotasMalformed: a quota znode someone else wrote badly gets
// an error naming it, and is never rewritten.
func TestClientQuotasMalformed(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	e.put("/config/clients/slow", []byte(`{"version":1,"config":{"producer_byte_rate":"fast"}}`))
	e.put("/config/clients/broken", []byte(`{"version":1,"config":`))
	e.put("/config/clients/extra", []byte(`{"version":1,"config":{"producer_byte_rate":"1","flush.ms":"1"}}`))
	_, err := e.admin.DescribeClientQuotas(e.ctx, QuotaFilter{Components: []QuotaFilterComponent{
		{EntityType: QuotaClientID, Match: QuotaMatchExact, Name: "slow"}}, Strict: true})
	wantKind(t, err, KindMalformed, "/config/clients/slow", "producer_byte_rate", "not a number")
	_, err = e.admin.DescribeClientQuotas(e.ctx, QuotaFilter{})
	wantKind(t, err, KindMalformed, "/config/clients/broken", "invalid JSON")
	// A filter that reads them but does not select them is not failed by
	// them (any user, not strict, reads the client ids too).
	e.put("/config/users/fine", []byte(`{"version":1,"config":{"producer_byte_rate":"1"}}`))
	fine, err := e.admin.DescribeClientQuotas(e.ctx, QuotaFilter{Components: []QuotaFilterComponent{
		{EntityType: QuotaUser, Match: QuotaMatchAny}}})
	if got := quotaList(fine); err != nil || len(got) != 1 || got[0] != "user=fine{producer_byte_rate=1}" {
		t.Errorf("users beside malformed clients: %q, %v", got, err)
	}
	for name, msg := range map[string]string{
		"slow":   "Not a number of type LONG",
		"broken": "does not rewrite a znode it cannot read",
		"extra":  `holds "flush.ms", which is not a quota of this entity`,
	} {
		before := e.snapshot()
		err := e.admin.AlterClientQuotas(e.ctx, QuotaEntity{client(name)}, []QuotaChange{setQ("consumer_byte_rate", 1)}, false)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", name, err, msg)
		}
		sameSnapshot(t, before, e.snapshot())
	}
}

// TestQuotaReadsNeverMissAMatch: for every filter over every kind of
// entity, what Kafka's narrowed reads find equals what matching every
// entity finds, so the narrowing only saves reads.
func TestQuotaReadsNeverMissAMatch(t *testing.T) {
	type ent struct {
		user, client, ip quotaName
	}
	names := []quotaName{{}, {set: true, def: true}, {set: true, name: "a"}, {set: true, name: "b"}}
	var ents []ent
	for _, u := range names {
		for _, c := range names {
			if u.set || c.set {
				ents = append(ents, ent{user: u, client: c})
			}
		}
	}
	for _, n := range names[1:] {
		ents = append(ents, ent{ip: n})
	}
	comps := func(typ string) []*QuotaFilterComponent {
		return []*QuotaFilterComponent{nil, {EntityType: typ, Match: QuotaMatchAny}, {EntityType: typ, Match: QuotaMatchDefault},
			{EntityType: typ, Match: QuotaMatchExact, Name: "a"}}
	}
	read := func(s quotaScope, name quotaName, znodeName string) bool {
		return s.read && (s.only == nil || *s.only == znodeName)
	}
	znodeName := func(n quotaName) string {
		if n.def {
			return znodes.DefaultEntityName
		}
		return n.name
	}
	checked := 0
	for _, strict := range []bool{false, true} {
		for _, u := range comps(QuotaUser) {
			for _, c := range comps(QuotaClientID) {
				for _, i := range comps(QuotaIP) {
					p := quotaFilterPlan{user: u, client: c, ip: i, strict: strict}
					if i != nil && (u != nil || c != nil) {
						continue // refused by planQuotaFilter
					}
					r := p.reads()
					for _, en := range ents {
						var found, want bool
						switch {
						case en.ip.set:
							found = read(r.ips, en.ip, znodeName(en.ip))
							want = u == nil && c == nil && (i == nil && !strict || i != nil && p.matchesQuota(i, en.ip))
						case en.user.set && en.client.set:
							found = read(r.userClients, quotaName{}, znodes.UserClientEntityName(znodeName(en.user), znodeName(en.client))) &&
								p.matchesQuota(u, en.user) && p.matchesQuota(c, en.client)
							want = i == nil && p.matchesQuota(u, en.user) && p.matchesQuota(c, en.client)
						case en.user.set:
							found = read(r.users, en.user, znodeName(en.user)) && p.matchesQuota(u, en.user) && p.matchesQuota(c, en.client)
							want = i == nil && p.matchesQuota(u, en.user) && p.matchesQuota(c, en.client)
						default:
							found = read(r.clients, en.client, znodeName(en.client)) && p.matchesQuota(u, en.user) && p.matchesQuota(c, en.client)
							want = i == nil && p.matchesQuota(u, en.user) && p.matchesQuota(c, en.client)
						}
						if found != want {
							t.Errorf("strict=%v user=%+v client=%+v ip=%+v entity %+v: found %v, want %v", strict, u, c, i, en, found, want)
						}
						checked++
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// TestApplyQuotaChanges: values are stored as Kafka stores them, and
// what is not an integer for a LONG or INT quota is refused (NaN too,
// which Kafka's check lets through as 0).
func TestApplyQuotaChanges(t *testing.T) {
	user := quotaLocation{entityType: znodes.EntityUsers, name: "u", namedUser: true}
	ipLoc := quotaLocation{entityType: znodes.EntityIPs, name: "1.2.3.4", ip: true}
	for _, tc := range []struct {
		loc  quotaLocation
		c    QuotaChange
		want string // the stored value, or the error's fragment after "!"
	}{
		{user, setQ("producer_byte_rate", 1024), "1024"},
		{user, setQ("producer_byte_rate", 1023.9999995), "1024"},
		{user, setQ("producer_byte_rate", -1), "!must be a LONG value"},
		{user, setQ("producer_byte_rate", 1e30), "!must be a LONG value"},
		{user, setQ("producer_byte_rate", math.Inf(1)), "!must be a LONG value"},
		{user, setQ("producer_byte_rate", math.NaN()), "!must be a LONG value"},
		{user, setQ("request_percentage", 12.5), "12.5"},
		{user, setQ("request_percentage", 1e7), "1.0E7"},
		{user, setQ("controller_mutation_rate", math.NaN()), "NaN"},
		{ipLoc, setQ("connection_creation_rate", 3e9), "!must be a INT value"},
		{ipLoc, setQ("connection_creation_rate", 7), "7"},
	} {
		after, err := applyQuotaChanges(tc.loc, "r", nil, []QuotaChange{tc.c})
		got := after[tc.c.Key]
		if err != nil {
			got = "!" + err.Error()
		}
		if !strings.HasPrefix(tc.want, "!") && got != tc.want || strings.HasPrefix(tc.want, "!") && !strings.Contains(got, tc.want[1:]) {
			t.Errorf("%s=%v: %q, want %q", tc.c.Key, tc.c.Value, got, tc.want)
		}
	}
}

// TestAlterClientAndIPConfigs: kafka-configs --zookeeper's path for client
// ids and IPs takes their quotas as strings, checked as Kafka checks them,
// under sanitized names; emptied, the znode goes.
func TestAlterClientAndIPConfigs(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	alter := func(typ, name string, set map[string]string, del ...string) error {
		_, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: typ, EntityName: name, Set: set, Delete: del})
		return err
	}
	if err := alter("clients", "app 1", map[string]string{"producer_byte_rate": "1024", "request_percentage": "50"}); err != nil {
		t.Fatal(err)
	}
	if got := string(e.get("/config/clients/app%201")); got != `{"version":1,"config":{"producer_byte_rate":"1024","request_percentage":"50"}}` {
		t.Errorf("client znode %s", got)
	}
	if err := alter("ips", "127.0.0.1", map[string]string{"connection_creation_rate": "5"}); err != nil {
		t.Fatal(err)
	}
	if err := alter("ips", znodes.DefaultEntityName, map[string]string{"connection_creation_rate": "50"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		typ, name string
		set       map[string]string
		msg       string
	}{
		{"clients", "app 1", map[string]string{"producer_byte_rate": "fast"}, "Not a number of type LONG"},
		{"clients", "app 1", map[string]string{"SCRAM-SHA-256": "x"}, "not a quota of this entity"},
		{"ips", "127.0.0.1", map[string]string{"connection_creation_rate": "-1"}, "Value must be at least 0"},
		{"ips", "127.0.0.1", map[string]string{"producer_byte_rate": "1"}, "not a quota of this entity"},
		{"ips", "not a host", map[string]string{"connection_creation_rate": "1"}, "is not a valid IP or resolvable host"},
		{"clients", "", map[string]string{"producer_byte_rate": "1"}, "must not be empty"},
	} {
		before := e.snapshot()
		if err := alter(tc.typ, tc.name, tc.set); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %q %v: %v, want %q", tc.typ, tc.name, tc.set, err, tc.msg)
		}
		sameSnapshot(t, before, e.snapshot())
	}
	if err := alter("clients", "app 1", nil, "producer_byte_rate", "request_percentage"); err != nil {
		t.Fatal(err)
	}
	if e.exists("/config/clients/app%201") {
		t.Error("emptied client znode kept")
	}
}
