package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

func (a *app) logDirsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "log-dirs",
		Short: "Describe the brokers' log directories (kafka-log-dirs.sh)",
	}
	cmd.AddCommand(a.logDirsDescribe())
	return group(cmd)
}

func (a *app) logDirsDescribe() *cobra.Command {
	var brokerList, topicList string
	cmd := &cobra.Command{
		Use:   "describe --bootstrap-server HOST:PORT [--broker-list 1,2] [--topic-list a,b]",
		Short: "List each broker's log directories and the replicas in them, with their sizes",
		Long: `describe asks each broker (all of them, or --broker-list) for its log
directories, as kafka-log-dirs --describe does, and prints what it prints: two
lines, then one JSON document of every directory with its replicas (of the
--topic-list topics, or all), their sizes, lags and whether they are the future
log of a move between directories. With -o json, the document alone. The
directories are the names a reassignment plan's log_dirs take. The brokers
answer this, so it needs --bootstrap-server.`,
		Example: `  kzadmin log-dirs describe --bootstrap-server kafka1:9092 --broker-list 1,2 --topic-list orders`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var wanted []int32
			if strings.Trim(brokerList, ", ") != "" {
				var err error
				if wanted, err = parseBrokerList("--broker-list", strings.Trim(brokerList, ",")); err != nil {
					return err
				}
			}
			var topics []string
			for t := range strings.SplitSeq(topicList, ",") {
				if t = strings.TrimSpace(t); t != "" {
					topics = append(topics, t)
				}
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				admin, ok := b.(backend.LogDirAdmin)
				if !ok {
					return usagef("log-dirs describe asks the brokers: it needs --bootstrap-server")
				}
				return a.describeLogDirs(ctx, b, admin, wanted, topics)
			})
		},
	}
	cmd.Flags().StringVar(&brokerList, "broker-list", "", "the brokers to ask: 0,1,2 (default: every broker of the cluster)")
	cmd.Flags().StringVar(&topicList, "topic-list", "", "the topics to show: a,b (default: all)")
	return cmd
}

func (a *app) describeLogDirs(ctx context.Context, b backend.Backend, admin backend.LogDirAdmin, wanted []int32, topics []string) error {
	view, err := b.Describe(ctx, backend.DescribeRequest{})
	if err != nil {
		return err
	}
	cluster := brokerIDs(view)
	slices.Sort(cluster)
	brokers := cluster
	if len(wanted) > 0 {
		slices.Sort(wanted)
		wanted = slices.Compact(wanted)
		var missing []int32
		for _, id := range wanted {
			if !slices.Contains(cluster, id) {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("the given brokers do not exist from --broker-list: %s. Current existent brokers: %s",
				joinIDs(missing), joinIDs(cluster))
		}
		brokers = wanted
	}
	if !a.jsonOutput() {
		fmt.Fprintln(a.out, "Querying brokers for log directories information")
	}
	described, err := admin.DescribeLogDirs(ctx, brokers)
	if err != nil {
		return err
	}
	doc := logDirsDocument(described, topics)
	if a.jsonOutput() {
		return a.printJSON(doc)
	}
	fmt.Fprintf(a.out, "Received log directory information from brokers %s\n", joinIDs(brokers))
	line, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	fmt.Fprintln(a.out, string(line))
	return nil
}

// joinIDs is "1,2,3".
func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}

// The document kafka-log-dirs prints.
type logDirsDoc struct {
	Version int               `json:"version"`
	Brokers []brokerLogDirDoc `json:"brokers"`
}

type brokerLogDirDoc struct {
	Broker  int32       `json:"broker"`
	LogDirs []logDirDoc `json:"logDirs"`
}

type logDirDoc struct {
	LogDir string `json:"logDir"`
	// Error is the Java exception class Kafka's tool names, or null.
	Error      *string          `json:"error"`
	Partitions []logDirPartDocs `json:"partitions"`
}

type logDirPartDocs struct {
	Partition string `json:"partition"`
	Size      int64  `json:"size"`
	OffsetLag int64  `json:"offsetLag"`
	IsFuture  bool   `json:"isFuture"`
}

// logDirsDocument is the answers as kafka-log-dirs prints them: the
// replicas of topics only (all when none), partitions named topic-N.
func logDirsDocument(described []backend.BrokerLogDirs, topics []string) logDirsDoc {
	doc := logDirsDoc{Version: 1, Brokers: []brokerLogDirDoc{}}
	for _, b := range described {
		bd := brokerLogDirDoc{Broker: b.Broker, LogDirs: []logDirDoc{}}
		for _, d := range b.Dirs {
			dd := logDirDoc{LogDir: d.Dir, Error: logDirErrorClass(d.ErrorCode), Partitions: []logDirPartDocs{}}
			for _, r := range d.Replicas {
				if len(topics) > 0 && !slices.Contains(topics, r.Topic) {
					continue
				}
				dd.Partitions = append(dd.Partitions, logDirPartDocs{Partition: fmt.Sprintf("%s-%d", r.Topic, r.Partition),
					Size: r.Size, OffsetLag: r.OffsetLag, IsFuture: r.IsFuture})
			}
			bd.LogDirs = append(bd.LogDirs, dd)
		}
		doc.Brokers = append(doc.Brokers, bd)
	}
	return doc
}

// logDirErrorClass names a directory's error as Kafka's tool does, by the
// class of the exception Kafka's AdminClient makes of it.
func logDirErrorClass(code int16) *string {
	if code == 0 {
		return nil
	}
	class, ok := map[int16]string{
		-1: "UnknownServerException",
		56: "KafkaStorageException",
		57: "LogDirNotFoundException",
		29: "ClusterAuthorizationException",
	}[code]
	if !ok {
		class = fmt.Sprintf("ApiException (error code %d)", code)
	}
	name := "org.apache.kafka.common.errors." + class
	return &name
}
