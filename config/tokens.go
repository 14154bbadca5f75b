package config

import "time"

// The delegation-token secret's keys: delegation.token.master.key is the
// deprecated name, read when the other is not set, as Kafka does.
const (
	DelegationTokenSecretKey = "delegation.token.secret.key"
	DelegationTokenMasterKey = "delegation.token.master.key"
)

// DelegationTokenSecret is the shared secret delegation tokens are signed
// with (delegation.token.secret.key, else the deprecated
// delegation.token.master.key); empty means tokens are off. Every broker
// of the cluster must have the same, for a token kzadmind makes to work
// on them.
func (c Config) DelegationTokenSecret() string {
	if v := c.Props[DelegationTokenSecretKey]; v != "" {
		return v
	}
	return c.Props[DelegationTokenMasterKey]
}

// tokenKeys are the delegation-token keys: the shared secret (kept in
// Props, shown hidden) and the lifetimes, with Kafka's defaults.
func tokenKeys() []keySpec {
	return []keySpec{
		propKey(DelegationTokenSecretKey, "Secret delegation tokens are signed with; the brokers' own. Empty: tokens are off.", nil),
		propKey(DelegationTokenMasterKey, "Deprecated name of delegation.token.secret.key, read when that is not set.", nil),
		durationKey("delegation.token.max.lifetime.ms", "Longest life of a delegation token.",
			false, time.Millisecond, 64, 1, func(c *Config) *time.Duration { return &c.DelegationTokenMaxLifetime }),
		durationKey("delegation.token.expiry.time.ms", "Life of a new or renewed delegation token when the request gives none.",
			false, time.Millisecond, 64, 1, func(c *Config) *time.Duration { return &c.DelegationTokenExpiryTime }),
		durationKey("delegation.token.expiry.check.interval.ms", "How often the active controller removes expired delegation tokens.",
			false, time.Millisecond, 64, 1, func(c *Config) *time.Duration { return &c.DelegationTokenExpiryCheckInterval }),
	}
}
