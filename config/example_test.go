package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/kzadmin/kzadmin/config"
)

func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "kzadmin-example")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "kzadmin.properties")
	_ = os.WriteFile(file, []byte("node.id=3000\nzookeeper.connect=zk1:2181,zk2:2181/kafka\nnum.partitions=3\nlog.dirs=/data\n"), 0o600)

	fs := pflag.NewFlagSet("kzadmind", pflag.ContinueOnError)
	config.AddFlags(fs)
	_ = fs.Parse([]string{"--num.partitions=6"})

	l, err := config.Load(config.LoadOptions{
		File:  file,
		Env:   []string{"KZADMIN_MAX_PARTITIONS=1000"},
		Flags: fs,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := l.Config
	fmt.Println(c.ZooKeeper.Connect.Servers, c.ZooKeeper.Connect.Chroot)
	fmt.Println(c.NumPartitions, l.Sources["num.partitions"])
	fmt.Println(c.MaxPartitions, l.Sources["max.partitions"])
	fmt.Println("unknown:", l.UnknownKeys)
	// Output:
	// [zk1:2181 zk2:2181] /kafka
	// 6 flag
	// 1000 env
	// unknown: [log.dirs]
}

func ExampleConfig_Validate() {
	c := config.Default()
	c.NodeID = 3000
	c.ZooKeeper.Connect, _ = config.ParseZKConnect("localhost:2181")
	c.UncleanRecoveryStrategy = "Foo"
	err := c.Validate()
	fmt.Println(err)
	var ve *config.ValueError
	fmt.Println(errors.As(err, &ve), ve.Key)
	// Output:
	// config: unclean.recovery.strategy="Foo": must be one of None, Balanced, Aggressive
	// true unclean.recovery.strategy
}

func ExampleConfig_WithDynamic() {
	static := config.Default()
	// The config map of /config/brokers/<default>.
	dynamic := map[string]string{
		"max.broker.partitions":          "4000",
		"unclean.leader.election.enable": "true",
		"log.retention.ms":               "86400000", // a broker setting: ignored here
	}
	c, err := static.WithDynamic(dynamic)
	fmt.Println(err)
	fmt.Printf("%+v %v\n", c.Limits(), c.UncleanLeaderElectionEnable)
	// Output:
	// <nil>
	// {MaxBrokerPartitions:4000 MaxPartitions:2147483647} true
}

func ExampleParseIBP() {
	for _, s := range []string{"2.7", "2.7-IV1", "3.9.0", "0.10.0.1"} {
		v, _ := config.ParseIBP(s)
		fmt.Println(s, "=>", v, v.AtLeast(config.IBP2_7_IV2))
	}
	// Output:
	// 2.7 => 2.7-IV2 true
	// 2.7-IV1 => 2.7-IV1 false
	// 3.9.0 => 3.9-IV0 true
	// 0.10.0.1 => 0.10.0-IV1 false
}
