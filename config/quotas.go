package config

import "time"

// quotaKeys are the controller mutation quota's window (KIP-599), Kafka's
// broker keys with their defaults: a bucket holds rate × window.num ×
// window.size.seconds partitions.
func quotaKeys() []keySpec {
	return []keySpec{
		int32Key("controller.quota.window.num", "Number of windows the controller mutation quota's burst spans.",
			false, 1, 1<<31-1, func(c *Config) *int32 { return &c.ControllerQuotaWindowNum }),
		durationKey("controller.quota.window.size.seconds", "Length of one window of the controller mutation quota, in seconds.",
			false, time.Second, 32, 1, func(c *Config) *time.Duration { return &c.ControllerQuotaWindowSize }),
	}
}
