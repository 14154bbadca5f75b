package kafka

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// BrokerOptions configure one broker. Only ZooKeeper is required; the zero
// value of everything else gives a small broker suited to tests.
type BrokerOptions struct {
	// ZooKeeper is zookeeper.connect: "host:port[,host:port...][/chroot]".
	// The broker creates the chroot if it is missing.
	ZooKeeper string
	// ID is broker.id. Zero is a valid id, so it is used as given.
	ID int32
	// Rack is broker.rack; empty means no rack.
	Rack string
	// IBP is inter.broker.protocol.version; empty means "3.9".
	IBP string
	// Port is the PLAINTEXT listener's port on 127.0.0.1; 0 picks a free one.
	Port int
	// OffsetsReplicationFactor is offsets.topic.replication.factor and the
	// transaction log's; 0 means 1, so a single broker can serve groups.
	OffsetsReplicationFactor int
	// SessionTimeout is zookeeper.session.timeout.ms; 0 means 6s.
	SessionTimeout time.Duration
	// Extra holds further server.properties entries. They override the
	// harness's defaults, including the ones above.
	Extra map[string]string
	// LogLevel is the root log4j level of the broker's log; empty means INFO.
	LogLevel string

	// DataDir holds server.properties, the log4j config, the broker's output
	// (server.log) and, unless LogDir is set, its data. Empty means a new
	// temporary directory, removed by Close.
	DataDir string
	// LogDir is Kafka's log.dirs, where partitions live; empty means
	// DataDir/kafka-logs.
	LogDir string
	// ExtraLogDirs adds log directories beside LogDir (LogDir-1,
	// LogDir-2, ...), for moves between a broker's log directories.
	ExtraLogDirs int

	// HeapMB caps the JVM heap; 0 means 256.
	HeapMB int
	// JVMFlags are added to the java command line before the main class.
	JVMFlags []string
	// Java is the java binary; empty means "java" from PATH.
	Java string
	// StartTimeout bounds how long a start or restart waits for the broker
	// to register and answer; 0 means 90s.
	StartTimeout time.Duration
	// StopTimeout bounds how long Stop waits for a controlled shutdown
	// before it kills the process; 0 means 60s.
	StopTimeout time.Duration
}

// withDefaults fills the zero fields that have defaults.
func (o BrokerOptions) withDefaults() BrokerOptions {
	if o.IBP == "" {
		o.IBP = "3.9"
	}
	if o.OffsetsReplicationFactor == 0 {
		o.OffsetsReplicationFactor = 1
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = 6 * time.Second
	}
	if o.LogLevel == "" {
		o.LogLevel = "INFO"
	}
	if o.HeapMB == 0 {
		o.HeapMB = 256
	}
	if o.Java == "" {
		o.Java = "java"
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 90 * time.Second
	}
	if o.StopTimeout == 0 {
		o.StopTimeout = 60 * time.Second
	}
	return o
}

// serverProperties returns the broker's server.properties entries. The
// defaults keep a broker small: few threads (two cores host three brokers
// and ZooKeeper), tiny internal topics, no rebalance delay, and a small log
// cleaner buffer, which Kafka otherwise allocates at 128 MiB up front.
func (o BrokerOptions) serverProperties() map[string]string {
	offsetsRF := strconv.Itoa(o.OffsetsReplicationFactor)
	p := map[string]string{
		"broker.id":                     strconv.Itoa(int(o.ID)),
		"listeners":                     fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", o.Port),
		"log.dirs":                      strings.Join(o.logDirs(), ","),
		"zookeeper.connect":             o.ZooKeeper,
		"zookeeper.session.timeout.ms":  strconv.FormatInt(o.SessionTimeout.Milliseconds(), 10),
		"inter.broker.protocol.version": o.IBP,

		"num.partitions":                           "1",
		"default.replication.factor":               "1",
		"offsets.topic.replication.factor":         offsetsRF,
		"offsets.topic.num.partitions":             "3",
		"transaction.state.log.replication.factor": offsetsRF,
		"transaction.state.log.min.isr":            "1",
		"transaction.state.log.num.partitions":     "3",
		"group.initial.rebalance.delay.ms":         "0",

		"controlled.shutdown.enable":           "true",
		"controlled.shutdown.max.retries":      "3",
		"controlled.shutdown.retry.backoff.ms": "500",
		"log.cleaner.dedupe.buffer.size":       "2097152",
		"num.network.threads":                  "2",
		"num.io.threads":                       "2",
		"background.threads":                   "2",
		"num.recovery.threads.per.data.dir":    "1",
		"log.retention.check.interval.ms":      "300000",
	}
	if o.Rack != "" {
		p["broker.rack"] = o.Rack
	}
	maps.Copy(p, o.Extra)
	return p
}

// writeProperties writes entries as a .properties file, sorted by key so
// the file reads the same on every run.
func writeProperties(path string, entries map[string]string) error {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		fmt.Fprintf(&b, "%s=%s\n", k, escapeProperty(entries[k]))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// escapeProperty escapes the characters java.util.Properties treats
// specially in a value.
func escapeProperty(v string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(v)
}

// log4jConfig sends the broker's log to stdout, which the harness writes to
// server.log, at the given root level, with the chattiest loggers quieter.
func log4jConfig(level string) map[string]string {
	return map[string]string{
		"log4j.rootLogger":                                         level + ", stdout",
		"log4j.appender.stdout":                                    "org.apache.log4j.ConsoleAppender",
		"log4j.appender.stdout.layout":                             "org.apache.log4j.PatternLayout",
		"log4j.appender.stdout.layout.ConversionPattern":           "[%d] %p %m (%c)%n",
		"log4j.logger.kafka.request.logger":                        "WARN",
		"log4j.logger.org.apache.zookeeper":                        "WARN",
		"log4j.logger.kafka.log.LogCleaner":                        "WARN",
		"log4j.logger.org.apache.kafka.common.utils.AppInfoParser": "WARN",
	}
}

// logDirs are LogDir and the ExtraLogDirs beside it.
func (o BrokerOptions) logDirs() []string {
	dirs := []string{o.LogDir}
	for i := 1; i <= o.ExtraLogDirs; i++ {
		dirs = append(dirs, fmt.Sprintf("%s-%d", o.LogDir, i))
	}
	return dirs
}

// writeBrokerConfig writes server.properties and log4j.properties into the
// broker's data directory and returns their paths.
func writeBrokerConfig(o BrokerOptions) (serverProps, log4jProps string, err error) {
	for _, dir := range o.logDirs() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", fmt.Errorf("broker %d log dir: %w", o.ID, err)
		}
	}
	serverProps = filepath.Join(o.DataDir, "server.properties")
	if err := writeProperties(serverProps, o.serverProperties()); err != nil {
		return "", "", fmt.Errorf("broker %d config: %w", o.ID, err)
	}
	log4jProps = filepath.Join(o.DataDir, "log4j.properties")
	if err := writeProperties(log4jProps, log4jConfig(o.LogLevel)); err != nil {
		return "", "", fmt.Errorf("broker %d config: %w", o.ID, err)
	}
	return serverProps, log4jProps, nil
}
