package cli

import "testing"

// TestElectDesignatedUsage: the flag rules of --election-type designated,
// and the ZooKeeper backend's refusal (no znode names a desired leader).
func TestElectDesignatedUsage(t *testing.T) {
	c := newCluster(t, "", "")
	c.ok("topics", "create", "--topic", "d", "--replica-assignment", "1:2")
	c.want(2, []string{"needs --leader"}, "elect", "--election-type", "designated", "--topic", "d", "--partition", "0")
	c.want(2, []string{"only for --election-type designated"}, "elect", "--election-type", "preferred", "--topic", "d",
		"--partition", "0", "--leader", "2")
	c.want(2, []string{"names its partitions"}, "elect", "--election-type", "designated", "--all-topic-partitions")
	noLeader := writeFile(t, `{"partitions":[{"topic":"d","partition":0}]}`)
	c.want(2, []string{`entry 0 needs "leader"`}, "elect", "--election-type", "designated", "--path-to-json-file", noLeader)
	file := writeFile(t, `{"partitions":[{"topic":"d","partition":0,"leader":2}]}`)
	c.want(2, []string{"--leader goes with --topic"}, "elect", "--election-type", "designated", "--path-to-json-file", file,
		"--leader", "2")
	c.want(2, []string{"need --bootstrap-server"}, "elect", "--election-type", "designated", "--path-to-json-file", file)
	c.want(2, []string{"need --bootstrap-server"}, "elect", "--election-type", "designated", "--topic", "d",
		"--partition", "0", "--leader", "2")
}
