package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseListener(t *testing.T) {
	tests := []struct {
		in   string
		want Listener
		str  string
	}{
		{"PLAINTEXT://:9092", Listener{"PLAINTEXT", "", 9092}, "PLAINTEXT://:9092"},
		{"plaintext://localhost:9092", Listener{"PLAINTEXT", "localhost", 9092}, "PLAINTEXT://localhost:9092"},
		{"INTERNAL://10.0.0.1:19092", Listener{"INTERNAL", "10.0.0.1", 19092}, "INTERNAL://10.0.0.1:19092"},
		{"EXTERNAL_1://broker.example.com:0", Listener{"EXTERNAL_1", "broker.example.com", 0}, "EXTERNAL_1://broker.example.com:0"},
		{"CLIENT-A://0.0.0.0:9093", Listener{"CLIENT-A", "0.0.0.0", 9093}, "CLIENT-A://0.0.0.0:9093"},
		{"PLAINTEXT://[::1]:9092", Listener{"PLAINTEXT", "::1", 9092}, "PLAINTEXT://[::1]:9092"},
		{"PLAINTEXT://[fe80::1%eth0]:9092", Listener{"PLAINTEXT", "fe80::1%eth0", 9092}, "PLAINTEXT://[fe80::1%eth0]:9092"},
		{"  SSL://h:1  ", Listener{"SSL", "h", 1}, "SSL://h:1"},
	}
	for _, tt := range tests {
		got, err := ParseListener(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseListener(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		if got.String() != tt.str {
			t.Errorf("String() = %q, want %q", got.String(), tt.str)
		}
	}
}

func TestParseListenerRefuses(t *testing.T) {
	tests := []struct{ in, want string }{
		{"localhost:9092", "is not NAME://host:port"},
		{"PLAINTEXT://localhost", "is not NAME://host:port"},
		{"PLAINTEXT://localhost:-1", "is not NAME://host:port"},
		{"PLAINTEXT://localhost:65536", "port must be between 0 and 65535"},
		{"PLAINTEXT://::1:9092", "is not NAME://host:port"},
		{"PLAIN TEXT://h:1", "is not NAME://host:port"},
		{"://h:1", "is not NAME://host:port"},
		{"PLAINTEXT://h:1/x", "is not NAME://host:port"},
		{"PLAINTEXT://a b:1", "is not NAME://host:port"},
		{"PLAINTEXT://[a b]:1", "is not NAME://host:port"},
	}
	for _, tt := range tests {
		_, err := ParseListener(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseListener(%q) err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestParseListeners(t *testing.T) {
	got, err := ParseListeners("PLAINTEXT://:9092, INTERNAL://127.0.0.1:9093,,")
	want := []Listener{{"PLAINTEXT", "", 9092}, {"INTERNAL", "127.0.0.1", 9093}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v", got, err)
	}
	if s := formatListeners(got); s != "PLAINTEXT://:9092,INTERNAL://127.0.0.1:9093" {
		t.Errorf("formatListeners = %q", s)
	}
	if got, err := ParseListeners(""); err != nil || got != nil {
		t.Errorf("ParseListeners(\"\") = %v, %v", got, err)
	}
	if _, err := ParseListeners("PLAINTEXT://:9092,bad"); err == nil {
		t.Error("a bad entry in the list was accepted")
	}
}

func TestParseSecurityProtocolMap(t *testing.T) {
	got, err := ParseSecurityProtocolMap("internal:plaintext, EXTERNAL:SASL_SSL,CONTROLLER:PLAINTEXT")
	want := map[string]SecurityProtocol{"INTERNAL": ProtocolPlaintext, "EXTERNAL": ProtocolSASLSSL, "CONTROLLER": ProtocolPlaintext}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v", got, err)
	}
	if s := formatSecurityProtocolMap(got); s != "CONTROLLER:PLAINTEXT,EXTERNAL:SASL_SSL,INTERNAL:PLAINTEXT" {
		t.Errorf("format = %q", s)
	}
	bad := []struct{ in, want string }{
		{"A:TLS", `entry "A:TLS": protocol must be one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL`},
		{"A", `entry "A" is not NAME:PROTOCOL`},
		{":PLAINTEXT", `entry ":PLAINTEXT" is not NAME:PROTOCOL`},
		{"A:PLAINTEXT,a:SSL", "listener A is mapped twice"},
	}
	for _, tt := range bad {
		_, err := ParseSecurityProtocolMap(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseSecurityProtocolMap(%q) err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestDefaultSecurityProtocolMapIsKafkas(t *testing.T) {
	got := formatSecurityProtocolMap(DefaultSecurityProtocolMap())
	if got != "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL" {
		t.Errorf("default map = %q", got)
	}
	// Each call returns a fresh map, so callers cannot change the default.
	m := DefaultSecurityProtocolMap()
	m["X"] = ProtocolSSL
	if _, ok := DefaultSecurityProtocolMap()["X"]; ok {
		t.Error("DefaultSecurityProtocolMap shares its map")
	}
}

func TestProtocolLayers(t *testing.T) {
	for _, tc := range []struct {
		protocol      string
		tls, sasl, ok bool
	}{
		{"PLAINTEXT", false, false, true},
		{"ssl", true, false, true},
		{" SASL_PLAINTEXT ", false, true, true},
		{"Sasl_Ssl", true, true, true},
		{"TLS", false, false, false},
		{"", false, false, false},
	} {
		tls, sasl, ok := ProtocolLayers(tc.protocol)
		if tls != tc.tls || sasl != tc.sasl || ok != tc.ok {
			t.Errorf("%q: got %v %v %v", tc.protocol, tls, sasl, ok)
		}
	}
}
