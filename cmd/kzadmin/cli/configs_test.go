package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestConfigsDescribeAndAlter(t *testing.T) {
	c := newCluster(t, "")
	c.ok("topics", "create", "--topic", "c", "--partitions", "1", "--replication-factor", "1", "--config", "retention.ms=1000")
	c.want(0, []string{"Completed updating config for topic c."}, "configs", "alter", "--entity-type", "topics",
		"--entity-name", "c", "--add-config", "cleanup.policy=[compact,delete],segment.ms=5000", "--delete-config", "retention.ms")
	if got := c.get(znodes.ConfigEntityPath("topics", "c")); got != `{"version":1,"config":{"cleanup.policy":"compact,delete","segment.ms":"5000"}}` {
		t.Fatalf("config %s", got)
	}
	kids, _, err := c.zk.Children(c.ctx, znodes.ConfigChangesPath)
	if err != nil || len(kids) != 1 || c.get(znodes.ConfigChangePath(kids[0])) != `{"version":2,"entity_path":"topics/c"}` {
		t.Fatalf("notifications %v %v", kids, err)
	}
	r := c.ok("configs", "describe", "--entity-type", "topics", "--entity-name", "c")
	for _, want := range []string{"ENTITY", "topic c", "cleanup.policy", "compact,delete", "override"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("describe lacks %q:\n%s", want, r.out)
		}
	}

	c.want(0, []string{"Completed updating default config for brokers in the cluster."}, "configs", "alter",
		"--entity-type", "brokers", "--entity-default", "--add-config", "log.retention.ms=120000,max.partitions=500")
	c.ok("configs", "alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config", "log.cleaner.threads=2")
	r = c.ok("configs", "describe", "--entity-type", "topics", "--entity-name", "c", "--all", "-o", "json")
	var ents []entityJSON
	if err := json.Unmarshal([]byte(r.out), &ents); err != nil || len(ents) != 1 {
		t.Fatalf("%s %v", r.out, err)
	}
	sources := map[string]configRow{}
	for _, row := range ents[0].Configs {
		sources[row.Name] = row
	}
	if sources["retention.ms"].Value != "120000" || !strings.HasPrefix(sources["retention.ms"].Source, "cluster default") ||
		sources["segment.ms"].Source != "override" || sources["flush.ms"].Source != "Kafka default" || len(sources) != 36 {
		t.Errorf("--all rows %v", sources)
	}
	r = c.ok("configs", "describe", "--entity-type", "brokers")
	for _, want := range []string{"brokers <default>", "max.partitions", "500", "broker 1", "log.cleaner.threads"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("brokers describe lacks %q:\n%s", want, r.out)
		}
	}

	c.want(1, []string{"Invalid config(s): flush.ms"}, "configs", "alter", "--entity-type", "topics", "--entity-name", "c", "--delete-config", "flush.ms")
	c.want(1, []string{"Invalid value x for configuration segment.ms: Not a number of type LONG"}, "configs", "alter",
		"--entity-type", "topics", "--entity-name", "c", "--add-config", "segment.ms=x")
	c.want(1, []string{"Topic 'nope' does not exist."}, "configs", "alter", "--entity-type", "topics", "--entity-name", "nope", "--add-config", "segment.ms=1")
	// As kafka-configs --zookeeper: what a broker does not take dynamically.
	c.want(1, []string{"Cannot update these configs dynamically: Set(log.retention.hours)"}, "configs", "alter",
		"--entity-type", "brokers", "--entity-default", "--add-config", "log.retention.hours=1,max.partitions=9")
	c.want(1, []string{"Topic 'nope' does not exist."}, "configs", "describe", "--entity-type", "topics", "--entity-name", "nope")
	c.want(2, []string{"--entity-type must be topics, brokers, users, clients or ips"}, "configs", "describe", "--entity-type", "groups")
	c.want(2, []string{"--entity-default applies to brokers, users, clients and ips only"}, "configs", "describe", "--entity-type", "topics", "--entity-default")
	c.want(2, []string{"nothing to do"}, "configs", "alter", "--entity-type", "topics", "--entity-name", "c")
	c.want(2, []string{"--entity-name or --entity-default is required"}, "configs", "alter", "--entity-type", "topics", "--add-config", "a=b")
	c.want(2, []string{"is not name=value"}, "configs", "alter", "--entity-type", "topics", "--entity-name", "c", "--add-config", "novalue")
}

func TestParseAddConfig(t *testing.T) {
	got, err := parseAddConfig("a=1, b=[x,y],c=d=e,,")
	if err != nil || len(got) != 3 || got["a"] != "1" || got["b"] != "x,y" || got["c"] != "d=e" {
		t.Fatalf("%v %v", got, err)
	}
}

// TestEntityFlagsResolve: kafka-configs' entity selectors, the repeated
// --entity-type users/clients form included, whose names pair with the
// types in the order given.
func TestEntityFlagsResolve(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    entitySelection
		wantErr string
	}{
		{args: []string{"--entity-type", "topics"}, want: entitySelection{typ: "topics"}},
		{args: []string{"--entity-type", "topic", "--entity-name", "t"}, want: entitySelection{typ: "topics", names: []string{"t"}}},
		{args: []string{"--entity-type", "brokers", "--entity-default"}, want: entitySelection{typ: "brokers", names: []string{"<default>"}}},
		{args: []string{"--user", "u", "--client", "c"}, want: entitySelection{typ: "users", names: []string{"u"}, client: "c"}},
		{args: []string{"--client-defaults"}, want: entitySelection{typ: "clients", names: []string{"<default>"}}},
		{args: []string{"--entity-type", "users", "--entity-name", "u", "--entity-type", "clients", "--entity-name", "c"},
			want: entitySelection{typ: "users", names: []string{"u"}, client: "c"}},
		// Names pair with types in order, whichever type comes first.
		{args: []string{"--entity-type", "clients", "--entity-name", "c", "--entity-type", "users", "--entity-name", "u"},
			want: entitySelection{typ: "users", names: []string{"u"}, client: "c"}},
		{args: []string{"--entity-type", "clients", "--entity-type", "users", "--entity-name", "c", "--entity-name", "u"},
			want: entitySelection{typ: "users", names: []string{"u"}, client: "c"}},
		{args: []string{"--entity-type", "users", "--entity-default", "--entity-type", "clients", "--entity-name", "c"},
			want: entitySelection{typ: "users", names: []string{"<default>"}, client: "c"}},
		{args: []string{"--entity-type", "users", "--entity-name", "u", "--entity-type", "clients", "--entity-default"},
			want: entitySelection{typ: "users", names: []string{"u"}, client: "<default>"}},
		{args: []string{"--entity-type", "client", "--entity-default", "--entity-type", "user", "--entity-default"},
			want: entitySelection{typ: "users", names: []string{"<default>"}, client: "<default>"}},

		{args: nil, wantErr: "--entity-type is required"},
		{args: []string{"--entity-type", "groups"}, wantErr: `not "groups"`},
		{args: []string{"--entity-type", "users", "--entity-type", "user"}, wantErr: "--entity-type users is given twice"},
		{args: []string{"--entity-type", "users", "--entity-type", "topics"}, wantErr: "only the entity types users and clients"},
		{args: []string{"--entity-type", "users", "--entity-type", "clients", "--entity-type", "ips"}, wantErr: "only the entity types users and clients"},
		{args: []string{"--entity-type", "users", "--entity-name", "u", "--entity-type", "clients"}, wantErr: "give an --entity-name or --entity-default for each"},
		{args: []string{"--entity-type", "topics", "--entity-name", "a", "--entity-name", "b"}, wantErr: "one --entity-name or --entity-default for each"},
		{args: []string{"--entity-type", "brokers", "--entity-name", "1", "--entity-default"}, wantErr: "one --entity-name or --entity-default for each"},
		{args: []string{"--entity-type", "topics", "--entity-default"}, wantErr: "applies to brokers, users, clients and ips only"},
		{args: []string{"--entity-type", "topics", "--entity-name", ""}, wantErr: "--entity-name must not be empty"},
		{args: []string{"--entity-type", "users", "--entity-name", "", "--entity-type", "clients", "--entity-name", "c"}, wantErr: "must not be empty"},
		{args: []string{"--entity-type", "users", "--user", "u"}, wantErr: "not both"},
		{args: []string{"--entity-name", "u", "--client", "c"}, wantErr: "not both"},
	} {
		var e entityFlags
		fs := pflag.NewFlagSet("configs", pflag.ContinueOnError)
		e.add(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%q: parse: %v", tc.args, err)
		}
		got, err := e.resolve()
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: got %+v, %v; want error containing %q", tc.args, got, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got.typ != tc.want.typ || got.client != tc.want.client ||
			strings.Join(got.names, "|") != strings.Join(tc.want.names, "|") || (got.names == nil) != (tc.want.names == nil)):
			t.Errorf("%q: got %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
}
