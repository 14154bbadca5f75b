package daemon

import (
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/security"
)

// replicaLogProber is what the unclean recovery manager (KIP-966) asks
// brokers for their replicas' log ends with. It dials exactly as the
// broker channels do (dial, from brokerDialer), so a TLS or SASL
// inter-broker listener needs nothing more: the dialer completes the SASL
// exchange before the prober sends its first request.
//
// It is built whatever unclean.recovery.manager.enabled says: the setting
// is dynamic, and an idle prober holds no connection (each Probe dials its
// own).
func replicaLogProber(conf config.Config, dial security.DialFunc) replicalog.Prober {
	opts := replicalog.Options{RequestTimeout: probeTimeout(conf)}
	if dial != nil {
		opts.Dial = dial.Addr()
	}
	return replicalog.New(opts)
}

// probeTimeout bounds one probe request: replicalog's default, but never
// longer than unclean.recovery.timeout.ms, since an answer after the
// recovery stopped waiting is thrown away.
func probeTimeout(conf config.Config) time.Duration {
	d := replicalog.DefaultRequestTimeout
	if t := conf.UncleanRecoveryTimeout; t > 0 && t < d {
		d = t
	}
	return d
}
