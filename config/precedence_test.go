package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestPrecedenceTable sets one key in any mix of layers and checks that the
// highest layer wins: default < file < env < flag.
func TestPrecedenceTable(t *testing.T) {
	type layers struct{ file, env, flag string } // "" = not set in that layer
	tests := []struct {
		key     string
		set     layers
		want    string
		wantSrc Source
	}{
		{"num.partitions", layers{}, "1", SourceDefault},
		{"num.partitions", layers{file: "2"}, "2", SourceFile},
		{"num.partitions", layers{env: "3"}, "3", SourceEnv},
		{"num.partitions", layers{flag: "4"}, "4", SourceFlag},
		{"num.partitions", layers{file: "2", env: "3"}, "3", SourceEnv},
		{"num.partitions", layers{file: "2", flag: "4"}, "4", SourceFlag},
		{"num.partitions", layers{env: "3", flag: "4"}, "4", SourceFlag},
		{"num.partitions", layers{file: "2", env: "3", flag: "4"}, "4", SourceFlag},
		{"delete.topic.enable", layers{file: "false"}, "false", SourceFile},
		{"delete.topic.enable", layers{file: "false", env: "true"}, "true", SourceEnv},
		{"delete.topic.enable", layers{file: "true", env: "true", flag: "false"}, "false", SourceFlag},
		{"unclean.recovery.strategy", layers{file: "None", env: "aggressive"}, "Aggressive", SourceEnv},
		{"unclean.recovery.strategy", layers{file: "None", flag: "BALANCED"}, "Balanced", SourceFlag},
		{"zookeeper.connect", layers{file: "f:2181", env: "e:2181/c"}, "e:2181/c", SourceEnv},
		{"zookeeper.connect", layers{file: "f:2181", env: "e:2181", flag: "g:1/x"}, "g:1/x", SourceFlag},
		{"inter.broker.protocol.version", layers{file: "2.8", env: "3.3-IV1"}, "3.3-IV1", SourceEnv},
		{"max.broker.partitions", layers{file: "10", env: "20", flag: "30"}, "30", SourceFlag},
		{"kzadmin.http.listen", layers{file: ":1", env: ""}, ":1", SourceFile},
		{"log.level", layers{file: "warn", flag: "trace"}, "trace", SourceFlag},
		{"unclean.recovery.timeout.ms", layers{file: "5", env: "6"}, "6", SourceEnv},
	}
	for _, tt := range tests {
		name := tt.key + " " + tt.set.file + "/" + tt.set.env + "/" + tt.set.flag
		t.Run(name, func(t *testing.T) {
			opts := LoadOptions{Env: []string{"KZADMIN_DEV=true"}}
			if tt.set.file != "" {
				opts.File = writeFile(t, tt.key+"="+tt.set.file)
			}
			if tt.set.env != "" {
				opts.Env = append(opts.Env, EnvName(tt.key)+"="+tt.set.env)
			}
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			AddFlags(fs)
			if tt.set.flag != "" {
				if err := fs.Parse([]string{"--" + tt.key + "=" + tt.set.flag}); err != nil {
					t.Fatal(err)
				}
			}
			opts.Flags = fs
			l, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			spec, _ := lookupSpec(tt.key)
			if got := spec.get(l.Config); got != tt.want || l.Sources[tt.key] != tt.wantSrc {
				t.Errorf("got %q from %v, want %q from %v", got, l.Sources[tt.key], tt.want, tt.wantSrc)
			}
		})
	}
}

// A value from a lower layer that is bad does not matter when a higher
// layer overrides it: only the winning value is parsed.
func TestOverriddenBadValueIsIgnored(t *testing.T) {
	file := writeFile(t, "num.partitions=lots", "node.id=1", "zookeeper.connect=zk")
	l, err := Load(LoadOptions{File: file, Env: []string{"KZADMIN_NUM_PARTITIONS=8"}})
	if err != nil || l.Config.NumPartitions != 8 {
		t.Errorf("num.partitions = %d, %v", l.Config.NumPartitions, err)
	}
}

// Rules that join keys report the origin of the key they name.
func TestCrossKeyErrorOrigins(t *testing.T) {
	file := writeFile(t,
		"node.id=1",
		"zookeeper.connect=zk",
		"listeners=CLIENT://:9092",
		"listener.security.protocol.map=CLIENT:PLAINTEXT",
		"inter.broker.listener.name=REPL",
	)
	_, err := Load(LoadOptions{File: file})
	want := `config: inter.broker.listener.name="REPL": must be one of the advertised listener names (CLIENT) (set by file ` + file + `:5)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}

	// The default inter-broker listener (PLAINTEXT) has no origin.
	file = writeFile(t, "node.id=1", "zookeeper.connect=zk", "listeners=CLIENT://:9092",
		"listener.security.protocol.map=CLIENT:PLAINTEXT")
	_, err = Load(LoadOptions{File: file})
	want = `config: inter.broker.listener.name="PLAINTEXT": must be one of the advertised listener names (CLIENT)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}

	// A SASL listener without mechanisms is refused on the mechanisms
	// key, which no layer set.
	_, err = Load(LoadOptions{Env: base("KZADMIN_LISTENERS=PLAINTEXT://:9092,SASL_PLAINTEXT://:9093")})
	if err == nil || !strings.Contains(err.Error(), "listener SASL_PLAINTEXT uses SASL_PLAINTEXT and needs SASL mechanisms") ||
		strings.Contains(err.Error(), "set by") {
		t.Errorf("sasl listener: %v", err)
	}
}

// Every mistake in one Load is reported: parse errors first, in key order,
// then the validation errors of keys that parsed.
func TestLoadReportsAllParseErrors(t *testing.T) {
	_, err := Load(LoadOptions{Env: base("KZADMIN_NUM_PARTITIONS=x", "KZADMIN_LOG_LEVEL=y", "KZADMIN_DEV=z",
		"KZADMIN_MAX_PARTITIONS=-1")})
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "kzadmin.dev") ||
		!strings.Contains(lines[1], "num.partitions") || !strings.HasPrefix(lines[2], `config: max.partitions="-1"`) ||
		!strings.HasPrefix(lines[3], `config: log.level="y"`) {
		t.Errorf("errors: %q", lines)
	}
}

// Listener setups operators write, through the whole Load path.
func TestListenerSetups(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want string // advertised listeners, or the error
	}{
		{"kafka default", nil, "PLAINTEXT://:9092"},
		{"advertise a host", []string{"KZADMIN_ADVERTISED_LISTENERS=PLAINTEXT://ctl1.example:9092"}, "PLAINTEXT://ctl1.example:9092"},
		{"internal and external", []string{
			"KZADMIN_LISTENERS=INTERNAL://:9092,EXTERNAL://:19092",
			"KZADMIN_ADVERTISED_LISTENERS=INTERNAL://10.0.0.1:9092,EXTERNAL://ctl.example.com:19092",
			"KZADMIN_LISTENER_SECURITY_PROTOCOL_MAP=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
			"KZADMIN_INTER_BROKER_LISTENER_NAME=INTERNAL",
		}, "INTERNAL://10.0.0.1:9092,EXTERNAL://ctl.example.com:19092"},
		{"advertise a subset", []string{
			"KZADMIN_LISTENERS=PLAINTEXT://:9092,LOCAL://127.0.0.1:9093",
			"KZADMIN_LISTENER_SECURITY_PROTOCOL_MAP=PLAINTEXT:PLAINTEXT,LOCAL:PLAINTEXT",
			"KZADMIN_ADVERTISED_LISTENERS=PLAINTEXT://ctl:9092",
		}, "PLAINTEXT://ctl:9092"},
		{"ipv6", []string{"KZADMIN_LISTENERS=PLAINTEXT://[::]:9092", "KZADMIN_ADVERTISED_LISTENERS=PLAINTEXT://[2001:db8::1]:9092"},
			"PLAINTEXT://[2001:db8::1]:9092"},
		{"advertise ::", []string{"KZADMIN_ADVERTISED_LISTENERS=PLAINTEXT://[::]:9092"},
			`config: advertised.listeners="PLAINTEXT://[::]:9092": cannot advertise the non-routable address :: (set by env KZADMIN_ADVERTISED_LISTENERS)`},
		{"same port twice", []string{"KZADMIN_LISTENERS=PLAINTEXT://:9092,B://127.0.0.1:9092",
			"KZADMIN_LISTENER_SECURITY_PROTOCOL_MAP=PLAINTEXT:PLAINTEXT,B:PLAINTEXT"},
			`config: listeners="PLAINTEXT://:9092,B://127.0.0.1:9092": listeners PLAINTEXT and B both use port 9092 (set by env KZADMIN_LISTENERS)`},
		{"empty listeners", []string{"KZADMIN_LISTENERS="},
			`config: listeners="": must name at least one listener, e.g. PLAINTEXT://:9092 (set by env KZADMIN_LISTENERS)`},
	}
	for _, tt := range tests {
		l, err := Load(LoadOptions{Env: base(tt.env...)})
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = formatListeners(l.Config.EffectiveAdvertisedListeners())
		}
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// Each Default call and each Load returns independent values: changing one
// Config's map or slices never shows in another.
func TestConfigsShareNothingMutable(t *testing.T) {
	a, b := Default(), Default()
	a.ListenerSecurityProtocolMap["X"] = ProtocolSSL
	a.Listeners[0].Port = 1
	if _, ok := b.ListenerSecurityProtocolMap["X"]; ok || b.Listeners[0].Port != 9092 {
		t.Error("two Default() results share state")
	}
	l1, err1 := Load(LoadOptions{Env: base()})
	l2, err2 := Load(LoadOptions{Env: base()})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	l1.Config.Listeners[0].Port = 1
	if l2.Config.Listeners[0].Port != 9092 {
		t.Error("two Load results share state")
	}
}
