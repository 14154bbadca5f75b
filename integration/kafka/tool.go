package kafka

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ToolTimeout bounds RunTool when ctx has no earlier deadline.
const ToolTimeout = 2 * time.Minute

// Main classes of the Kafka command-line tools (Kafka 3.9).
const (
	TopicCommand              = "org.apache.kafka.tools.TopicCommand"
	ConfigCommand             = "kafka.admin.ConfigCommand"
	ReassignPartitionsCommand = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
	LeaderElectionCommand     = "org.apache.kafka.tools.LeaderElectionCommand"
	ZkSecurityMigrator        = "kafka.admin.ZkSecurityMigrator"
	LogDirsCommand            = "org.apache.kafka.tools.LogDirsCommand"
)

// RunTool runs a Kafka command-line tool (mainClass, e.g. TopicCommand)
// with args, on the broker jars' classpath with logging reduced to
// warnings on stderr, and returns what it printed. A non-zero exit is an
// error that carries the tail of stderr; stdout and stderr are returned
// either way. The run is bounded by ToolTimeout.
func RunTool(ctx context.Context, mainClass string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, ToolTimeout)
	defer cancel()
	libs, err := Libs(ctx)
	if err != nil {
		return "", "", err
	}
	dir, err := os.MkdirTemp("", "kzadmin-kafka-tool-")
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", mainClass, err)
	}
	defer os.RemoveAll(dir)
	log4jProps := filepath.Join(dir, "log4j.properties")
	if err := writeProperties(log4jProps, toolLog4jConfig()); err != nil {
		return "", "", fmt.Errorf("%s: %w", mainClass, err)
	}
	jvm := append(jvmArgs(256, log4jProps, dir), "-cp", filepath.Join(libs, "*"), mainClass)
	cmd := exec.CommandContext(ctx, "java", append(jvm, args...)...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	stdout, stderr = out.String(), errOut.String()
	if err != nil {
		short := mainClass[strings.LastIndexByte(mainClass, '.')+1:]
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		return stdout, stderr, fmt.Errorf("%s %s: %w\n%s", short, strings.Join(args, " "), err, lastLines(stderr, 20))
	}
	return stdout, stderr, nil
}

// toolLog4jConfig keeps a tool's stdout for its answer: warnings and worse
// go to stderr.
func toolLog4jConfig() map[string]string {
	return map[string]string{
		"log4j.rootLogger":                               "WARN, stderr",
		"log4j.appender.stderr":                          "org.apache.log4j.ConsoleAppender",
		"log4j.appender.stderr.Target":                   "System.err",
		"log4j.appender.stderr.layout":                   "org.apache.log4j.PatternLayout",
		"log4j.appender.stderr.layout.ConversionPattern": "[%d] %p %m (%c)%n",
	}
}
