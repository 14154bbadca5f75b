package kafka

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestServerPropertiesDefaultsAndOverrides(t *testing.T) {
	o := BrokerOptions{
		ZooKeeper: "127.0.0.1:2181/kafka", ID: 7, Rack: "r2", Port: 9093,
		LogDir: "/tmp/x", Extra: map[string]string{"num.partitions": "4", "auto.create.topics.enable": "false"},
	}.withDefaults()
	p := o.serverProperties()
	want := map[string]string{
		"broker.id":                        "7",
		"broker.rack":                      "r2",
		"listeners":                        "PLAINTEXT://127.0.0.1:9093",
		"log.dirs":                         "/tmp/x",
		"zookeeper.connect":                "127.0.0.1:2181/kafka",
		"zookeeper.session.timeout.ms":     "6000",
		"inter.broker.protocol.version":    "3.9",
		"offsets.topic.replication.factor": "1",
		"group.initial.rebalance.delay.ms": "0",
		"num.partitions":                   "4",     // Extra wins over the default
		"auto.create.topics.enable":        "false", // Extra adds keys
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
	if _, ok := (BrokerOptions{ZooKeeper: "z"}).withDefaults().serverProperties()["broker.rack"]; ok {
		t.Error("broker.rack set for a broker without a rack")
	}
}

func TestWritePropertiesIsSortedAndEscaped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.properties")
	if err := writeProperties(path, map[string]string{"b": `C:\dir`, "a": "x=y"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a=x=y\nb=C:\\\\dir\n"; string(got) != want {
		t.Fatalf("file = %q, want %q", got, want)
	}
}

func TestSplitConnect(t *testing.T) {
	tests := []struct {
		in     string
		hosts  []string
		chroot string
	}{
		{"127.0.0.1:2181", []string{"127.0.0.1:2181"}, ""},
		{"a:1,b:2,c:3/kafka", []string{"a:1", "b:2", "c:3"}, "/kafka"},
		{"a:1/deep/root/", []string{"a:1"}, "/deep/root"},
		{"a:1/", []string{"a:1"}, ""},
	}
	for _, tt := range tests {
		hosts, chroot := splitConnect(tt.in)
		if !slices.Equal(hosts, tt.hosts) || chroot != tt.chroot {
			t.Errorf("splitConnect(%q) = %v, %q; want %v, %q", tt.in, hosts, chroot, tt.hosts, tt.chroot)
		}
	}
}

func TestClusterRacks(t *testing.T) {
	tests := []struct {
		opts ClusterOptions
		want []string
	}{
		{ClusterOptions{}, []string{"r1", "r2", "r3", "r4"}},
		{ClusterOptions{Racks: []string{"a", "b"}}, []string{"a", "b", "a", "b"}},
		{ClusterOptions{NoRacks: true}, []string{"", "", "", ""}},
	}
	for _, tt := range tests {
		var got []string
		for i := range 4 {
			got = append(got, clusterRack(tt.opts, i))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v: racks %v, want %v", tt.opts, got, tt.want)
		}
	}
}

func TestLastLines(t *testing.T) {
	if got := lastLines("a\nb\nc\n", 2); got != "b\nc" {
		t.Fatalf("lastLines = %q", got)
	}
	if got := lastLines("a", 5); got != "a" {
		t.Fatalf("lastLines = %q", got)
	}
}
