package znodes

import (
	"encoding/json"
	"fmt"
)

// FeatureStatus is the status of the /feature znode.
type FeatureStatus int32

const (
	// FeatureDisabled is written by controllers at IBP < 2.7.
	FeatureDisabled FeatureStatus = 0
	// FeatureEnabled is written by controllers at IBP >= 2.7.
	FeatureEnabled FeatureStatus = 1
)

// FinalizedFeatures is the payload of /feature (KIP-584). Its Stat.version
// is the feature epoch. ZooKeeper-mode brokers support no features, so any
// non-empty enabled feature makes every such broker exit: always write an
// empty Features map.
//
// Version 1: features are {"min_version_level":s,"max_version_level":s}.
// Version 2 (IBP >= 3.3): features are {"max_version_level":s}.
type FinalizedFeatures struct {
	// Version is 1 or 2. Encode writes it; 0 means 2.
	Version int32
	Status  FeatureStatus
	// Features maps feature name to its finalized (max) version level; nil
	// when empty.
	Features map[string]int16
	// Unknown holds top-level fields this package does not know.
	Unknown map[string]json.RawMessage
}

func featureKnownFields() []string { return []string{"version", "status", "features"} }

// DecodeFinalizedFeatures decodes /feature with Kafka's checks: version 1
// or 2, status 0 or 1 (required), features required; each level is a short,
// max >= 1, and in version 1 min_version_level is required with
// 1 <= min <= max.
func DecodeFinalizedFeatures(data []byte) (FinalizedFeatures, error) {
	d := decoder{znode: FeaturePath}
	var ff FinalizedFeatures
	f, err := d.parse(data)
	if err != nil {
		return ff, err
	}
	if ff.Version, err = d.requiredInt32(f, "", "version"); err != nil {
		return ff, err
	}
	if ff.Version != 1 && ff.Version != 2 {
		return ff, d.fail(sub("", "version"), "unsupported version %d of feature information", ff.Version)
	}
	raw, ok := optional(f, "status")
	if !ok {
		return ff, d.fail(sub("", "status"), "status can not be absent in feature information")
	}
	status, err := d.int32(sub("", "status"), raw)
	if err != nil {
		return ff, err
	}
	if status != int32(FeatureDisabled) && status != int32(FeatureEnabled) {
		return ff, d.fail(sub("", "status"), "malformed status %d", status)
	}
	ff.Status = FeatureStatus(status)
	if ff.Features, err = d.finalizedLevels(f, ff.Version); err != nil {
		return ff, err
	}
	ff.Unknown = unknownFields(f, featureKnownFields()...)
	return ff, nil
}

func (d decoder) finalizedLevels(f fields, version int32) (map[string]int16, error) {
	raw, ok := optional(f, "features")
	if !ok {
		return nil, d.fail(sub("", "features"), "features map can not be absent")
	}
	field := sub("", "features")
	features, err := d.object(field, raw)
	if err != nil || len(features) == 0 {
		return nil, err
	}
	out := make(map[string]int16, len(features))
	for _, name := range sortedKeys(features) {
		at := sub(field, name)
		levels, err := d.intObject(at, features[name])
		if err != nil {
			return nil, err
		}
		max, hasMax := levels["max_version_level"]
		min, hasMin := levels["min_version_level"]
		switch {
		case !hasMax:
			return nil, d.fail(at, "max_version_level absent")
		case version == 1 && !hasMin:
			return nil, d.fail(at, "min_version_level absent")
		case version == 1 && (min < 1 || max < min):
			return nil, d.fail(at, "want 1 <= min_version_level <= max_version_level, got %d..%d", min, max)
		case max < 1:
			return nil, d.fail(at, "want max_version_level >= 1, got %d", max)
		}
		out[name] = max
	}
	return out, nil
}

// Encode writes Kafka's key order, e.g. {"features":{},"version":2,"status":1}.
// In version 1 each feature is written with min and max both set to the
// finalized level, as Kafka does.
func (ff FinalizedFeatures) Encode() ([]byte, error) {
	version := ff.Version
	if version == 0 {
		version = 2
	}
	if version != 1 && version != 2 {
		return nil, fmt.Errorf("encode %s: unsupported version %d", FeaturePath, version)
	}
	if ff.Status != FeatureDisabled && ff.Status != FeatureEnabled {
		return nil, fmt.Errorf("encode %s: invalid status %d", FeaturePath, ff.Status)
	}
	var w jsonWriter
	w.beginObject()
	w.key("features")
	w.beginObject()
	for _, name := range sortedKeys(ff.Features) {
		level := ff.Features[name]
		if level < 1 {
			return nil, fmt.Errorf("encode %s: feature %q: level %d < 1", FeaturePath, name, level)
		}
		w.key(name)
		w.beginObject()
		w.intField("max_version_level", int64(level))
		if version == 1 {
			w.intField("min_version_level", int64(level))
		}
		w.endObject()
	}
	w.endObject()
	w.intField("version", int64(version))
	w.intField("status", int64(ff.Status))
	if err := w.unknown(FeaturePath, ff.Unknown, featureKnownFields()...); err != nil {
		return nil, err
	}
	w.endObject()
	return w.bytes(), nil
}
