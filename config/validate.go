package config

import (
	"errors"
	"fmt"
	"strings"
)

// Validate checks every key's value and the rules that join keys (listener
// names, the inter-broker listener, ...). It returns nil, or one
// *ValueError per problem joined with errors.Join, in key order, so an
// operator sees every mistake at once.
func (c Config) Validate() error {
	return joinValueErrors(c.validate())
}

// validate returns the problems as ValueErrors so Load can say where each
// value came from before joining them.
func (c Config) validate() []*ValueError {
	var errs []*ValueError
	for _, s := range keySpecs() {
		if s.check == nil {
			continue
		}
		if reason := s.check(c); reason != "" {
			errs = append(errs, &ValueError{Key: s.name, Value: shownValue(s.name, s.get(c)), Reason: reason})
		}
	}
	errs = append(errs, c.validateListeners()...)
	return append(errs, c.validateELR()...)
}

// validateELR refuses eligible.leader.replicas.enable below IBP 2.7-IV2.
// Leaders on older protocol versions send no AlterPartition: they write
// the ISR into the state znode themselves, rewriting it without the ELR
// fields they do not know, so the lists would silently vanish; and every
// ELR write by the controller bumps the znode version those leaders use for
// their conditional updates, failing their ISR changes until the next
// LeaderAndIsr. Either way the ELR could not be trusted.
func (c Config) validateELR() []*ValueError {
	if !c.EligibleLeaderReplicasEnable || c.InterBrokerProtocolVersion.AlterPartitionSupported() {
		return nil
	}
	return []*ValueError{{Key: "eligible.leader.replicas.enable", Value: "true", Reason: fmt.Sprintf(
		"needs inter.broker.protocol.version %s or later (it is %s): brokers on older versions write the ISR "+
			"into ZooKeeper themselves and drop the ELR; raise inter.broker.protocol.version or turn "+
			"eligible.leader.replicas.enable off", IBP2_7_IV2, c.InterBrokerProtocolVersion)}}
}

func joinValueErrors(errs []*ValueError) error {
	if len(errs) == 0 {
		return nil
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return errors.Join(out...)
}

// validateListeners applies Kafka's listener rules, plus kzadmin's own: a
// SASL listener needs sasl.enabled.mechanisms (Kafka's default, GSSAPI, is
// not offered).
func (c Config) validateListeners() []*ValueError {
	var errs []*ValueError
	bad := func(key, reason string) {
		spec, _ := lookupSpec(key)
		errs = append(errs, &ValueError{Key: key, Value: spec.get(c), Reason: reason})
	}
	// The later rules compare names with listeners, so a broken list
	// stops here rather than causing a cascade of follow-on errors.
	if len(c.Listeners) == 0 {
		bad("listeners", "must name at least one listener, e.g. PLAINTEXT://:9092")
		return errs
	}
	if r := checkListenerList(c.Listeners, true); r != "" {
		bad("listeners", r)
		return errs
	}
	for _, l := range c.Listeners {
		p, ok := c.ListenerSecurityProtocolMap[l.Name]
		switch {
		case !ok:
			bad("listener.security.protocol.map", fmt.Sprintf("has no entry for listener %s", l.Name))
		case (p == ProtocolSASLPlaintext || p == ProtocolSASLSSL) && !c.hasListenerProp(l.Name, "sasl.enabled.mechanisms"):
			bad("sasl.enabled.mechanisms", fmt.Sprintf(
				"listener %s uses %s and needs SASL mechanisms (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512); GSSAPI is not offered", l.Name, p))
		}
	}
	for name, p := range c.ListenerSecurityProtocolMap {
		if _, ok := parseSecurityProtocol(string(p)); !ok || name == "" {
			bad("listener.security.protocol.map", "protocols must be one of "+joinProtocols())
			break
		}
	}
	if r := checkListenerList(c.AdvertisedListeners, false); r != "" {
		bad("advertised.listeners", r)
	}
	for _, a := range c.AdvertisedListeners {
		if !hasListener(c.Listeners, a.Name) {
			bad("advertised.listeners", fmt.Sprintf("listener %s is not among listeners (%s)", a.Name, listenerNames(c.Listeners)))
		}
		if a.Host == "0.0.0.0" || a.Host == "::" {
			bad("advertised.listeners", fmt.Sprintf("cannot advertise the non-routable address %s", a.Host))
		}
	}
	adv := c.EffectiveAdvertisedListeners()
	if ib := c.EffectiveInterBrokerListenerName(); len(adv) > 0 && !hasListener(adv, ib) {
		errs = append(errs, &ValueError{Key: "inter.broker.listener.name", Value: ib,
			Reason: fmt.Sprintf("must be one of the advertised listener names (%s)", listenerNames(adv))})
	}
	return append(errs, c.validateControlPlane(adv)...)
}

// validateControlPlane applies Kafka's rules for control.plane.listener.name:
// an advertised listener, other than the inter-broker one.
func (c Config) validateControlPlane(adv []Listener) []*ValueError {
	cp := c.ControlPlaneListenerName
	if cp == "" {
		return nil
	}
	var reason string
	switch {
	case !hasListener(adv, cp):
		reason = fmt.Sprintf("must be one of the advertised listener names (%s)", listenerNames(adv))
	case cp == c.EffectiveInterBrokerListenerName():
		reason = "must differ from the inter-broker listener name"
	default:
		return nil
	}
	return []*ValueError{{Key: "control.plane.listener.name", Value: cp, Reason: reason}}
}

// hasListenerProp reports whether key is set for listener, plainly or with
// the listener prefix.
func (c Config) hasListenerProp(listener, key string) bool {
	if v := c.Props[ListenerPrefix+strings.ToLower(listener)+"."+key]; strings.TrimSpace(v) != "" {
		return true
	}
	return strings.TrimSpace(c.Props[key]) != ""
}

// checkListenerList refuses repeated names and, for bound listeners,
// repeated ports (port 0 picks a free port, so it may repeat).
func checkListenerList(ls []Listener, distinctPorts bool) string {
	names := make(map[string]bool)
	ports := make(map[int]string)
	for _, l := range ls {
		if l.Name == "" {
			return "every listener needs a name"
		}
		if names[l.Name] {
			return fmt.Sprintf("listener name %s appears twice", l.Name)
		}
		names[l.Name] = true
		if l.Port < 0 || l.Port > 65535 {
			return fmt.Sprintf("listener %s: port must be between 0 and 65535", l.Name)
		}
		if other, dup := ports[l.Port]; distinctPorts && dup && l.Port != 0 {
			return fmt.Sprintf("listeners %s and %s both use port %d", other, l.Name, l.Port)
		}
		ports[l.Port] = l.Name
	}
	return ""
}

func hasListener(ls []Listener, name string) bool {
	for _, l := range ls {
		if l.Name == name {
			return true
		}
	}
	return false
}
