package znodes

import (
	"encoding/json"
	"fmt"
	"time"
)

// BrokerRegistrationVersion is the registration version a Kafka 3.x broker
// writes at IBP >= 2.7-IV0, and the one Encode writes.
const BrokerRegistrationVersion = 5

// SupportedVersionRange is a broker-advertised feature range (KIP-584).
// ZooKeeper-mode brokers of every 2.7-3.9 release advertise none.
type SupportedVersionRange struct {
	Min int16
	Max int16
}

// BrokerRegistration is the payload of the ephemeral /brokers/ids/<id>.
//
// Versions read: 1 (host/port only), 2 (+endpoints), 3 (+rack),
// 4 (+listener_security_protocol_map), 5 (+features). Encode writes 5.
type BrokerRegistration struct {
	// Version is what was read; Encode always writes 5.
	Version int32
	// Host and Port are the first PLAINTEXT-protocol endpoint, kept for
	// pre-0.9 clients; Host "" is written as null and Port is then -1.
	// Kafka reads them only from version 1 registrations.
	Host string
	Port int32
	// JMXPort is -1 when JMX is not enabled; required by Kafka's decoder.
	JMXPort int32
	// Timestamp is the registration time in epoch ms as a decimal string.
	Timestamp string
	// Endpoints are the advertised listeners, in registration order.
	Endpoints []Endpoint
	// Rack is broker.rack, nil when the broker has none.
	Rack *string
	// Features are the supported feature ranges; nil when none (always, for
	// ZooKeeper-mode brokers). Encode writes "features":{}.
	Features map[string]SupportedVersionRange
	// Unknown holds top-level fields this package does not know, re-emitted
	// by Encode.
	Unknown map[string]json.RawMessage
}

func brokerKnownFields() []string {
	return []string{"version", "host", "port", "jmx_port", "timestamp", "endpoints",
		"listener_security_protocol_map", "rack", "features"}
}

// NewBrokerRegistration builds what a 3.x broker registers: host and port
// are taken from the first PLAINTEXT-protocol endpoint, as Kafka does.
func NewBrokerRegistration(endpoints []Endpoint, rack *string, jmxPort int32, now time.Time) BrokerRegistration {
	b := BrokerRegistration{
		Version:   BrokerRegistrationVersion,
		Port:      -1,
		JMXPort:   jmxPort,
		Timestamp: MillisString(now),
		Endpoints: endpoints,
		Rack:      rack,
	}
	for _, e := range endpoints {
		if e.SecurityProtocol == ProtocolPlaintext {
			b.Host, b.Port = e.Host, e.Port
			break
		}
	}
	return b
}

// ListenerSecurityProtocolMap returns listener name to security protocol for
// the registration's endpoints.
func (b BrokerRegistration) ListenerSecurityProtocolMap() map[string]string {
	m := make(map[string]string, len(b.Endpoints))
	for _, e := range b.Endpoints {
		m[e.Listener] = e.SecurityProtocol
	}
	return m
}

// Endpoint returns the endpoint of the named (upper-case) listener.
func (b BrokerRegistration) Endpoint(listener string) (Endpoint, bool) {
	for _, e := range b.Endpoints {
		if e.Listener == listener {
			return e, true
		}
	}
	return Endpoint{}, false
}

// DecodeBrokerRegistration decodes /brokers/ids/<id>. The id names the
// znode in errors. Kafka fails a whole broker-change round on one bad
// registration ("Failed to parse ZooKeeper registration for broker N").
func DecodeBrokerRegistration(id int32, data []byte) (BrokerRegistration, error) {
	d := decoder{znode: BrokerIDPath(id)}
	var b BrokerRegistration
	f, err := d.parse(data)
	if err != nil {
		return b, err
	}
	if b.Version, err = d.requiredInt32(f, "", "version"); err != nil {
		return b, err
	}
	if b.Version < 1 {
		return b, d.fail(sub("", "version"), "unsupported version %d of broker registration", b.Version)
	}
	if b.JMXPort, err = d.requiredInt32(f, "", "jmx_port"); err != nil {
		return b, err
	}
	if b.Timestamp, _, err = d.optionalString(f, "", "timestamp"); err != nil {
		return b, err
	}
	if err = d.brokerHostPort(f, &b); err != nil {
		return b, err
	}
	if err = d.brokerEndpoints(f, &b); err != nil {
		return b, err
	}
	if rack, ok, err := d.optionalString(f, "", "rack"); err != nil {
		return b, err
	} else if ok {
		b.Rack = &rack
	}
	if b.Features, err = d.brokerFeatures(f); err != nil {
		return b, err
	}
	b.Unknown = unknownFields(f, brokerKnownFields()...)
	return b, nil
}

// brokerHostPort reads host and port: required for version 1, optional
// (but typed as Kafka writes them) afterwards.
func (d decoder) brokerHostPort(f fields, b *BrokerRegistration) error {
	var err error
	b.Port = -1
	if b.Version == 1 {
		if b.Host, err = d.requiredString(f, "", "host"); err != nil {
			return err
		}
		if !validHost(b.Host) {
			return d.fail(sub("", "host"), "host %q cannot be written as an endpoint", clip(b.Host))
		}
		b.Port, err = d.requiredInt32(f, "", "port")
		return err
	}
	if b.Host, _, err = d.optionalString(f, "", "host"); err != nil {
		return err
	}
	b.Port, err = d.optionalInt32(f, "", "port", -1)
	return err
}

func (d decoder) brokerEndpoints(f fields, b *BrokerRegistration) error {
	if b.Version == 1 {
		b.Endpoints = []Endpoint{{Listener: ProtocolPlaintext, Host: b.Host, Port: b.Port,
			SecurityProtocol: ProtocolPlaintext}}
		return nil
	}
	var protocols map[string]string
	if raw, ok := f["listener_security_protocol_map"]; ok {
		field := sub("", "listener_security_protocol_map")
		m, err := d.stringMap(field, raw)
		if err != nil {
			return err
		}
		protocols = make(map[string]string, len(m))
		for k, v := range m {
			p, err := NormalizeSecurityProtocol(v)
			if err != nil {
				return d.fail(sub(field, k), "%v", err)
			}
			protocols[k] = p
		}
	}
	raw, err := d.required(f, "", "endpoints")
	if err != nil {
		return err
	}
	entries, err := d.strings(sub("", "endpoints"), raw)
	if err != nil {
		return err
	}
	if b.Endpoints, err = ParseEndpoints(entries, protocols); err != nil {
		return d.fail(sub("", "endpoints"), "%v", err)
	}
	return nil
}

// brokerFeatures reads "features": name -> {"min_version":s,"max_version":s}.
// Kafka reads each range as a map of ints, so every inner value must be an
// integer; both bounds are required and 0 <= min <= max.
func (d decoder) brokerFeatures(f fields) (map[string]SupportedVersionRange, error) {
	raw, ok := optional(f, "features")
	if !ok {
		return nil, nil
	}
	field := sub("", "features")
	features, err := d.object(field, raw)
	if err != nil || len(features) == 0 {
		return nil, err
	}
	out := make(map[string]SupportedVersionRange, len(features))
	for _, name := range sortedKeys(features) {
		at := sub(field, name)
		levels, err := d.intObject(at, features[name])
		if err != nil {
			return nil, err
		}
		min, hasMin := levels["min_version"]
		max, hasMax := levels["max_version"]
		if !hasMin || !hasMax {
			return nil, d.fail(at, "want both min_version and max_version")
		}
		if min < 0 || max < min {
			return nil, d.fail(at, "want 0 <= min_version <= max_version, got %d..%d", min, max)
		}
		out[name] = SupportedVersionRange{Min: min, Max: max}
	}
	return out, nil
}

// intObject reads an object whose values must all be 16-bit integers
// (feature version levels are Java shorts).
func (d decoder) intObject(field string, raw []byte) (map[string]int16, error) {
	f, err := d.object(field, raw)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int16, len(f))
	for _, k := range sortedKeys(f) {
		if out[k], err = d.int16(sub(field, k), f[k]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Encode writes the version 5 registration. Endpoints are checked to read
// back identically; a listener or host that Kafka's endpoint pattern cannot
// carry, a duplicate listener, or an unknown protocol is an error.
func (b BrokerRegistration) Encode() ([]byte, error) {
	const znode = "/brokers/ids/<id>"
	entries := make([]string, len(b.Endpoints))
	for i, e := range b.Endpoints {
		entries[i] = e.String()
	}
	if err := b.checkEndpoints(entries); err != nil {
		return nil, fmt.Errorf("encode %s: %w", znode, err)
	}
	var w jsonWriter
	w.beginObject()
	w.intField("version", BrokerRegistrationVersion)
	w.key("host")
	if b.Host == "" {
		w.null()
	} else {
		w.str(b.Host)
	}
	w.intField("port", int64(b.Port))
	w.intField("jmx_port", int64(b.JMXPort))
	w.strField("timestamp", b.Timestamp)
	w.key("endpoints")
	w.beginArray()
	for _, s := range entries {
		w.str(s)
	}
	w.endArray()
	w.key("listener_security_protocol_map")
	w.beginObject()
	for _, e := range b.Endpoints {
		w.strField(e.Listener, e.SecurityProtocol)
	}
	w.endObject()
	if b.Rack != nil {
		w.strField("rack", *b.Rack)
	}
	w.key("features")
	w.beginObject()
	for _, name := range sortedKeys(b.Features) {
		w.key(name)
		w.beginObject()
		w.intField("min_version", int64(b.Features[name].Min))
		w.intField("max_version", int64(b.Features[name].Max))
		w.endObject()
	}
	w.endObject()
	if err := w.unknown(znode, b.Unknown, brokerKnownFields()...); err != nil {
		return nil, err
	}
	w.endObject()
	return w.bytes(), nil
}

func (b BrokerRegistration) checkEndpoints(entries []string) error {
	protocols := make(map[string]string, len(b.Endpoints))
	for _, e := range b.Endpoints {
		if p, err := NormalizeSecurityProtocol(e.SecurityProtocol); err != nil || p != e.SecurityProtocol {
			return fmt.Errorf("endpoint %s: unknown security protocol %q", e, e.SecurityProtocol)
		}
		protocols[e.Listener] = e.SecurityProtocol
	}
	back, err := ParseEndpoints(entries, protocols)
	if err != nil {
		return err
	}
	if len(back) != len(b.Endpoints) {
		return fmt.Errorf("endpoints %q do not read back as %d endpoints", entries, len(b.Endpoints))
	}
	for i := range back {
		if back[i] != b.Endpoints[i] {
			return fmt.Errorf("endpoint %q does not read back unchanged", entries[i])
		}
	}
	for name, r := range b.Features {
		if r.Min < 0 || r.Max < r.Min {
			return fmt.Errorf("feature %q: want 0 <= min <= max, got %d..%d", name, r.Min, r.Max)
		}
	}
	return nil
}
