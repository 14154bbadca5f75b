package kafkaconn

import (
	"context"
	"fmt"
	"maps"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiVersionsFirst is the ApiVersions version Negotiate tries first: the
// newest a Kafka 3.9 broker serves. Older brokers answer it
// UNSUPPORTED_VERSION and get v0.
const apiVersionsFirst int16 = 3

// Negotiate sends ApiVersions, as every Kafka client does before anything
// else, and keeps the peer's version ranges for PickVersion. It tries v3
// and falls back to v0 when the peer answers UNSUPPORTED_VERSION (brokers
// before 2.4).
func (c *Conn) Negotiate(ctx context.Context) error {
	r, err := c.apiVersions(ctx, apiVersionsFirst)
	if err == nil && r.ErrorCode == kerr.UnsupportedVersion.Code {
		r, err = c.apiVersions(ctx, 0)
	}
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return fmt.Errorf("ApiVersions v%d to %s: %w", r.Version, c.addr, err)
	}
	c.versions = make(map[int16]kmsg.ApiVersionsResponseApiKey, len(r.ApiKeys))
	for _, k := range r.ApiKeys {
		c.versions[k.ApiKey] = k
	}
	return nil
}

func (c *Conn) apiVersions(ctx context.Context, version int16) (*kmsg.ApiVersionsResponse, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = version
	req.ClientSoftwareName = c.cfg.SoftwareName
	if req.ClientSoftwareName == "" {
		req.ClientSoftwareName = "kzadmin"
	}
	req.ClientSoftwareVersion = c.cfg.SoftwareVersion
	if req.ClientSoftwareVersion == "" {
		req.ClientSoftwareVersion = "1"
	}
	resp, err := c.RoundTrip(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.ApiVersionsResponse), nil
}

// PickVersion returns the highest version of key in [lo, hi] that the peer
// advertised in Negotiate, or a *VersionError (also before Negotiate).
func (c *Conn) PickVersion(key, lo, hi int16) (int16, error) {
	k, ok := c.versions[key]
	if !ok {
		return 0, &VersionError{Addr: c.addr, Name: c.name(key), Key: key, Lo: lo, Hi: hi}
	}
	v := min(hi, k.MaxVersion)
	if v < lo || v < k.MinVersion {
		return 0, &VersionError{Addr: c.addr, Name: c.name(key), Key: key, Lo: lo, Hi: hi,
			Advertised: true, Min: k.MinVersion, Max: k.MaxVersion}
	}
	return v, nil
}

// Versions returns a copy of what the peer advertised in Negotiate, by
// key; nil before Negotiate.
func (c *Conn) Versions() map[int16]kmsg.ApiVersionsResponseApiKey {
	return maps.Clone(c.versions)
}
