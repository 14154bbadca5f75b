package daemon

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// finalizedFeatures is what a ZooKeeper-mode Kafka broker answers in the
// KIP-584 fields of ApiVersions v3+: the features finalized in /feature
// and their epoch, which is the znode's version.
type finalizedFeatures struct {
	epoch    int64 // -1: none finalized (no /feature, or Disabled, or unreadable)
	features map[string]int16
}

var noFinalizedFeatures = finalizedFeatures{epoch: -1}

// finalizedFeaturesFrom decides what /feature finalizes, as Kafka 3.9's
// FinalizedFeatureChangeListener does: an absent znode, an undecodable
// one and a Disabled one finalize nothing (epoch -1); an Enabled one
// finalizes its features at its version. The error says why a present
// znode was not taken.
func finalizedFeaturesFrom(data []byte, stat zkadmin.Stat, exists bool) (finalizedFeatures, error) {
	if !exists {
		return noFinalizedFeatures, nil
	}
	ff, err := znodes.DecodeFinalizedFeatures(data)
	if err != nil {
		return noFinalizedFeatures, err
	}
	if ff.Status != znodes.FeatureEnabled {
		return noFinalizedFeatures, nil
	}
	return finalizedFeatures{epoch: int64(stat.Version), features: ff.Features}, nil
}

// fill sets the response's finalized features, sorted by name. Kafka
// leaves out a feature at level 0; /feature cannot hold one (levels are
// at least 1), so every feature is listed, with its level as both its
// minimum and maximum, as Kafka's ApiVersionsResponse builds them.
func (f finalizedFeatures) fill(resp *kmsg.ApiVersionsResponse) {
	resp.FinalizedFeaturesEpoch = f.epoch
	resp.FinalizedFeatures = nil
	for _, name := range slices.Sorted(maps.Keys(f.features)) {
		level := f.features[name]
		if level == 0 {
			continue
		}
		resp.FinalizedFeatures = append(resp.FinalizedFeatures, kmsg.ApiVersionsResponseFinalizedFeature{
			Name: name, MinVersionLevel: level, MaxVersionLevel: level,
		})
	}
}

// featureFollower keeps the finalized features current by watching
// /feature, on every kzadmind, active or standby, since each answers
// ApiVersions for the cluster as a broker does.
type featureFollower struct {
	zk  *zkadmin.Client
	log zerolog.Logger
	cur atomic.Pointer[finalizedFeatures]
}

func newFeatureFollower(zk *zkadmin.Client, log zerolog.Logger) *featureFollower {
	f := &featureFollower{zk: zk, log: log.With().Str("component", "features").Logger()}
	f.cur.Store(&noFinalizedFeatures)
	return f
}

// fillApiVersions is the listeners' wire.Config.Features.
func (f *featureFollower) fillApiVersions(resp *kmsg.ApiVersionsResponse) { f.cur.Load().fill(resp) }

// run follows /feature until ctx ends: it reads the znode, arms a watch,
// and reads again when the watch fires or a new session comes up.
func (f *featureFollower) run(ctx context.Context) {
	for ctx.Err() == nil {
		sess := f.zk.Session()
		if err := f.zk.WaitConnected(ctx); err != nil {
			return
		}
		if sess.Expired() {
			continue
		}
		watch, err := f.read(ctx)
		if err != nil {
			f.log.Warn().Err(err).Msg("reading the finalized features; retrying")
			if !sleepCtx(ctx, time.Second) {
				return
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-sess.Done():
		case <-watch:
		}
	}
}

// read reads /feature once, stores what it finalizes and returns the
// watch that fires when it changes.
func (f *featureFollower) read(ctx context.Context) (<-chan zkadmin.Event, error) {
	data, stat, watch, err := f.zk.GetW(ctx, znodes.FeaturePath)
	exists := true
	if errors.Is(err, zkadmin.ErrNoNode) {
		exists = false
		var ok bool
		ok, _, watch, err = f.zk.ExistsW(ctx, znodes.FeaturePath)
		if err == nil && ok {
			return nil, fmt.Errorf("%s appeared while being read", znodes.FeaturePath)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", znodes.FeaturePath, err)
	}
	next, err := finalizedFeaturesFrom(data, stat, exists)
	if err != nil {
		// As a broker does: nothing is finalized until it is fixed.
		f.log.Error().Err(err).Msg("finalized features unreadable; advertising none")
	}
	if prev := f.cur.Swap(&next); prev.epoch != next.epoch || !maps.Equal(prev.features, next.features) {
		f.log.Info().Int64("epoch", next.epoch).Interface("features", next.features).Msg("finalized features")
	}
	return watch, nil
}
