// Package replicalogreal checks controller/replicalog against real Kafka
// 3.9 brokers in ZooKeeper mode under Kafka's own controller: that
// ListOffsets with replica id -2 makes followers, and replicas of a
// partition that has no leader, answer from their own logs, and what the
// epoch they return means. The findings are written down in the test.
//
// The test starts ZooKeeper and three broker JVMs; it honours
// KZADMIN_SKIP_HEAVY=1 and, as every test that starts brokers, should run
// under flock /tmp/kzadmin-heavy.lock.
package replicalogreal
