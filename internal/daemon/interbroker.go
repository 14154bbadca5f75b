package daemon

import (
	"strconv"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security"
)

// brokerDialer is how the controller connects to brokers: on the listener
// Kafka's controller uses, control.plane.listener.name when set, else the
// inter-broker listener (inter.broker.listener.name, PLAINTEXT by default);
// with that listener's security protocol from
// listener.security.protocol.map, and the client settings a Kafka
// broker's controller takes from the same properties (TLS trust and
// keystore, sasl.mechanism.inter.broker.protocol and the listener's
// login module). The brokers' registrations must advertise that listener.
// Wrong settings fail start-up. The same dialer suits the
// unclean-recovery prober (DialFunc.Addr), which the controller points at
// the same listener.
func (d *Daemon) brokerDialer() (security.DialFunc, error) {
	return brokerDialer(d.conf)
}

func brokerDialer(conf config.Config) (security.DialFunc, error) {
	name := conf.ControllerToBrokerListenerName()
	proto := string(conf.ListenerSecurityProtocolMap[name])
	if proto == "" {
		proto = name // Kafka's default map names each protocol after itself
	}
	return security.NewClientDialer(security.ClientOptions{
		Listener: name, Protocol: proto, Props: conf.Property,
		ClientID: strconv.Itoa(int(conf.NodeID)),
	})
}
