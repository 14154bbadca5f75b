package zkadmin

import (
	"crypto/rand"
	"io"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/placement"
)

// DefaultMaxAttempts bounds how often an admin write re-reads and retries
// after losing a race to a concurrent writer. Every lost round means another
// writer's multi committed, so N concurrent creators need at most N rounds.
const DefaultMaxAttempts = 64

// AdminOptions configure an Admin. The zero value works: Kafka's defaults,
// no static limits, crypto/rand topic ids.
type AdminOptions struct {
	// Config is the static configuration (the properties file). Every
	// operation overlays the cluster-wide dynamic defaults in
	// /config/brokers/<default> onto it (config.Config.WithDynamic), so the
	// limits in force are the file's unless the znode overrides them. The
	// zero value means config.Default().
	Config *config.Config
	// MaxAttempts bounds the re-read and retry rounds of a write that loses
	// a race; 0 means DefaultMaxAttempts.
	MaxAttempts int
	// MaxInFlight is the pipelining depth of cluster reads; 0 means
	// DefaultMaxInFlight.
	MaxInFlight int
	// Rand drives placement's random start; nil uses math/rand/v2.
	Rand placement.Rand
	// TopicIDs is the randomness for new topic ids; nil is crypto/rand.
	TopicIDs io.Reader
	// Logger receives a debug line per retried write.
	Logger zerolog.Logger
	// Committer, when set, commits CreateTopics' multis in the Admin's
	// place (see CreateCommitter); nil commits them here.
	Committer CreateCommitter
	// PrereadCreates makes each CreateTopics round start the next round's
	// cluster read while its last multi is in flight (see
	// admin_create_preread.go): for a server whose creates come back to
	// back, not for a one-shot tool.
	PrereadCreates bool
	// OnCreateRound, when set, is told how long each round of
	// CreateTopics took, by phase (kzadmind exports it as a metric).
	OnCreateRound func(CreateRoundTiming)
}

// CreateRoundTiming is one round of CreateTopics, by phase.
type CreateRoundTiming struct {
	// Topics is how many topics the round planned, refusals included.
	Topics int
	// Preread reports whether the round planned on a pre-read.
	Preread bool
	// Read is the cluster read, or the wait for the pre-read; Plan is the
	// validation and placement; Commit is the multis, through the
	// Committer when there is one. A round refused or failed before its
	// multis has no Commit.
	Read, Plan, Commit time.Duration
}

// Admin is kzadmin's AdminZkClient: it validates admin requests against the
// cluster as ZooKeeper holds it, checks the partition limits, and writes
// configs, assignments, deletion markers, config-change notifications and
// the legacy reassignment and election requests, each as one multi. It is
// safe for concurrent use; so are several Admins in several processes (see
// "Partition limits" in the package doc).
type Admin struct {
	zk   *Client
	cfg  config.Config
	opts AdminOptions
	// topics caches topic znodes for the create path (admin_topic_cache.go).
	topics *topicCache
	// knownBrokers are the brokers the last cluster read listed, whose
	// registrations the next read fetches alongside the listing.
	knownBrokers *brokerList
	// listing is the last listing of /brokers/topics the create path
	// read or left (topic_listing.go).
	listing *listingMemo
	// preread is the cluster read the last round started for the next
	// (admin_create_preread.go).
	preread prereadSlot
	// readMemo is what the create path's last cluster read resolved
	// (topic_read_memo.go).
	readMemo readMemoSlot
	// markerParentKnown: createRoundsPath exists, as the last round that
	// chained its multis found (createChain).
	markerParentKnown atomic.Bool
	// writes counts the multis of writeLoop (every write but creates), so
	// that a pre-read sent before one is not used after it.
	writes atomic.Uint64
}

// NewAdmin returns an Admin working through c.
func NewAdmin(c *Client, opts AdminOptions) *Admin {
	cfg := config.Default()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.TopicIDs == nil {
		opts.TopicIDs = rand.Reader
	}
	return &Admin{zk: c, cfg: cfg, opts: opts, topics: newTopicCache(), knownBrokers: &brokerList{},
		listing: &listingMemo{}, preread: prereadSlot{maxAge: prereadMaxAge}}
}

// Client returns the ZooKeeper client the Admin works through.
func (a *Admin) Client() *Client { return a.zk }
