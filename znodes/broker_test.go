package znodes_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestEndpointString(t *testing.T) {
	cases := map[string]znodes.Endpoint{
		"PLAINTEXT://b1:9092":      {Listener: "PLAINTEXT", Host: "b1", Port: 9092},
		"SSL://[::1]:9093":         {Listener: "SSL", Host: "::1", Port: 9093},
		"INTERNAL://:9094":         {Listener: "INTERNAL", Port: 9094},
		"X://[fe80::1%eth0]:-1":    {Listener: "X", Host: "fe80::1%eth0", Port: -1},
		"REPLICATION://10.0.0.1:0": {Listener: "REPLICATION", Host: "10.0.0.1", Port: 0},
	}
	for want, e := range cases {
		if got := e.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", e, got, want)
		}
	}
}

func TestParseEndpoints(t *testing.T) {
	custom := map[string]string{"INTERNAL": "SASL_SSL", "CLIENT": "SSL"}
	cases := []struct {
		name    string
		entries []string
		proto   map[string]string
		want    []znodes.Endpoint
	}{
		{"default map", []string{"PLAINTEXT://h:1", "SASL_SSL://h:2"}, nil, []znodes.Endpoint{
			{Listener: "PLAINTEXT", Host: "h", Port: 1, SecurityProtocol: "PLAINTEXT"},
			{Listener: "SASL_SSL", Host: "h", Port: 2, SecurityProtocol: "SASL_SSL"}}},
		{"listener upper-cased", []string{"internal://h:1"}, custom, []znodes.Endpoint{
			{Listener: "INTERNAL", Host: "h", Port: 1, SecurityProtocol: "SASL_SSL"}}},
		{"ipv6 with brackets", []string{"CLIENT://[2001:db8::1]:9093"}, custom, []znodes.Endpoint{
			{Listener: "CLIENT", Host: "2001:db8::1", Port: 9093, SecurityProtocol: "SSL"}}},
		{"ipv6 without brackets", []string{"CLIENT://::1:9093"}, custom, []znodes.Endpoint{
			{Listener: "CLIENT", Host: "::1", Port: 9093, SecurityProtocol: "SSL"}}},
		{"null host", []string{"CLIENT://:9093"}, custom, []znodes.Endpoint{
			{Listener: "CLIENT", Port: 9093, SecurityProtocol: "SSL"}}},
		{"negative port", []string{"CLIENT://h:-1"}, custom, []znodes.Endpoint{
			{Listener: "CLIENT", Host: "h", Port: -1, SecurityProtocol: "SSL"}}},
		{"whitespace around commas", []string{"CLIENT://h:1 ", " INTERNAL://h:2"}, custom, []znodes.Endpoint{
			{Listener: "CLIENT", Host: "h", Port: 1, SecurityProtocol: "SSL"},
			{Listener: "INTERNAL", Host: "h", Port: 2, SecurityProtocol: "SASL_SSL"}}},
		{"comma inside one entry", []string{"CLIENT://h:1,INTERNAL://h:2"}, custom, []znodes.Endpoint{
			{Listener: "CLIENT", Host: "h", Port: 1, SecurityProtocol: "SSL"},
			{Listener: "INTERNAL", Host: "h", Port: 2, SecurityProtocol: "SASL_SSL"}}},
		{"empty entries dropped", []string{"", "CLIENT://h:1", ""}, custom, []znodes.Endpoint{
			{Listener: "CLIENT", Host: "h", Port: 1, SecurityProtocol: "SSL"}}},
		{"no endpoints", nil, nil, nil},
		{"greedy listener", []string{"A://B://h:1"}, map[string]string{"A://B": "SSL"}, []znodes.Endpoint{
			{Listener: "A://B", Host: "h", Port: 1, SecurityProtocol: "SSL"}}},
	}
	for _, c := range cases {
		got, err := znodes.ParseEndpoints(c.entries, c.proto)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ParseEndpoints(%q) = %+v, %v; want %+v", c.name, c.entries, got, err, c.want)
		}
	}
}

func TestParseEndpointsErrors(t *testing.T) {
	cases := map[string][]string{
		"unable to parse":              {"h:1"},
		"no security protocol":         {"CLIENT://h:1"},
		"must have a different name":   {"SSL://h:1", "SSL://h:2"},
		"port out of range":            {"SSL://h:2147483648"},
		"unable to parse \"SSL://h:\"": {"SSL://h:"},
		"unable to parse \"SSL://h h":  {"SSL://h h:1"},
	}
	for want, entries := range cases {
		_, err := znodes.ParseEndpoints(entries, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseEndpoints(%q) = %v, want error containing %q", entries, err, want)
		}
	}
}

func TestNormalizeSecurityProtocol(t *testing.T) {
	for in, want := range map[string]string{"ssl": "SSL", "Sasl_Ssl": "SASL_SSL", "PLAINTEXT": "PLAINTEXT", "sasl_plaintext": "SASL_PLAINTEXT"} {
		if got, err := znodes.NormalizeSecurityProtocol(in); err != nil || got != want {
			t.Errorf("NormalizeSecurityProtocol(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "TLS", "TRACE", "PLAINTEXT "} {
		if _, err := znodes.NormalizeSecurityProtocol(in); err == nil {
			t.Errorf("NormalizeSecurityProtocol(%q) should fail", in)
		}
	}
}

func TestBrokerRegistrationProtocolMapNormalised(t *testing.T) {
	b, err := znodes.DecodeBrokerRegistration(1, []byte(`{"version":4,"jmx_port":-1,`+
		`"endpoints":["EXTERNAL://h:1"],"listener_security_protocol_map":{"EXTERNAL":"sasl_ssl","UNUSED":"ssl"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if b.Endpoints[0].SecurityProtocol != "SASL_SSL" {
		t.Fatalf("protocol names are normalised: %+v", b.Endpoints)
	}
	if got := b.ListenerSecurityProtocolMap(); !reflect.DeepEqual(got, map[string]string{"EXTERNAL": "SASL_SSL"}) {
		t.Fatalf("ListenerSecurityProtocolMap = %v", got)
	}
	if b.Host != "" || b.Port != -1 || b.Rack != nil || b.Features != nil || b.Unknown != nil {
		t.Fatalf("absent optional fields: %+v", b)
	}
}

func TestBrokerRegistrationRackAndFeatures(t *testing.T) {
	b, err := znodes.DecodeBrokerRegistration(1, []byte(`{"version":5,"jmx_port":-1,"endpoints":[],`+
		`"rack":null,"features":{"f":{"min_version":1,"max_version":2,"first_active_version":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if b.Rack != nil {
		t.Fatalf("null rack must mean no rack, got %q", *b.Rack)
	}
	if want := map[string]znodes.SupportedVersionRange{"f": {Min: 1, Max: 2}}; !reflect.DeepEqual(b.Features, want) {
		t.Fatalf("features = %+v", b.Features)
	}
	b, err = znodes.DecodeBrokerRegistration(1, []byte(`{"version":5,"jmx_port":-1,"endpoints":[],"rack":"","features":null}`))
	if err != nil || b.Rack == nil || *b.Rack != "" || b.Features != nil {
		t.Fatalf("empty rack is a rack: %+v, %v", b, err)
	}
}

func TestNewBrokerRegistrationPicksPlaintextProtocol(t *testing.T) {
	endpoints := []znodes.Endpoint{
		{Listener: "PLAINTEXT", Host: "ssl-host", Port: 9093, SecurityProtocol: znodes.ProtocolSSL},
		{Listener: "INTERNAL", Host: "int-host", Port: 9094, SecurityProtocol: znodes.ProtocolPlaintext},
	}
	b := znodes.NewBrokerRegistration(endpoints, nil, -1, time.UnixMilli(5))
	if b.Host != "int-host" || b.Port != 9094 {
		t.Fatalf("host/port must come from the first PLAINTEXT-protocol endpoint: %q:%d", b.Host, b.Port)
	}
	if e, ok := b.Endpoint("INTERNAL"); !ok || e.Port != 9094 {
		t.Fatalf("Endpoint(INTERNAL) = %+v, %v", e, ok)
	}
	if _, ok := b.Endpoint("NOPE"); ok {
		t.Fatal("Endpoint(NOPE) found")
	}
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"version":5,"host":"int-host","port":9094,"jmx_port":-1,"timestamp":"5",` +
		`"endpoints":["PLAINTEXT://ssl-host:9093","INTERNAL://int-host:9094"],` +
		`"listener_security_protocol_map":{"PLAINTEXT":"SSL","INTERNAL":"PLAINTEXT"},"features":{}}`
	if string(enc) != want {
		t.Fatalf("encode\n got %s\nwant %s", enc, want)
	}
}

func TestBrokerRegistrationV1BecomesV5(t *testing.T) {
	b, err := znodes.DecodeBrokerRegistration(0, []byte(`{"version":1,"host":"localhost","port":9092,"jmx_port":9999,"timestamp":"2233345666"}`))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"version":5,"host":"localhost","port":9092,"jmx_port":9999,"timestamp":"2233345666",` +
		`"endpoints":["PLAINTEXT://localhost:9092"],"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"features":{}}`
	if string(enc) != want {
		t.Fatalf("got %s\nwant %s", enc, want)
	}
}

func TestBrokerRegistrationUnknownFieldsKept(t *testing.T) {
	in := `{"version":5,"host":null,"port":-1,"jmx_port":-1,"timestamp":"1","endpoints":[],` +
		`"listener_security_protocol_map":{},"features":{},"tags":{"az": "a"},"build":"3.9.0"}`
	b, err := znodes.DecodeBrokerRegistration(2, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"version":5,"host":null,"port":-1,"jmx_port":-1,"timestamp":"1","endpoints":[],` +
		`"listener_security_protocol_map":{},"features":{},"build":"3.9.0","tags":{"az":"a"}}`
	if string(enc) != want {
		t.Fatalf("got %s\nwant %s", enc, want)
	}
}

// TestEndpointStringParsesBack: Endpoint.String is the inverse of Kafka's
// endpoint parsing for every host shape Kafka registers.
func TestEndpointStringParsesBack(t *testing.T) {
	proto := map[string]string{"L": znodes.ProtocolSSL}
	for _, host := range []string{"", "h", "b1.example.com", "10.0.0.1", "::1", "2001:db8::42", "fe80::1%eth0", "under_score", "a-b"} {
		for _, port := range []int32{0, 1, 9092, 65535, -1, 2147483647, -2147483648} {
			e := znodes.Endpoint{Listener: "L", Host: host, Port: port, SecurityProtocol: znodes.ProtocolSSL}
			got, err := znodes.ParseEndpoints([]string{e.String()}, proto)
			if err != nil || len(got) != 1 || got[0] != e {
				t.Errorf("%s: %+v, %v", e, got, err)
			}
		}
	}
}

func TestDefaultListenerSecurityProtocolMapIsFresh(t *testing.T) {
	m := znodes.DefaultListenerSecurityProtocolMap()
	if len(m) != 4 || m["SASL_SSL"] != "SASL_SSL" {
		t.Fatalf("default map %v", m)
	}
	m["X"] = "SSL"
	if _, ok := znodes.DefaultListenerSecurityProtocolMap()["X"]; ok {
		t.Fatal("DefaultListenerSecurityProtocolMap must return a fresh map")
	}
}
