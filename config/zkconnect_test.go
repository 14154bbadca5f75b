package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseZKConnect(t *testing.T) {
	tests := []struct {
		in         string
		servers    []string
		chroot     string
		wantString string
	}{
		{"", nil, "", ""},
		{"localhost:2181", []string{"localhost:2181"}, "", "localhost:2181"},
		{"localhost", []string{"localhost:2181"}, "", "localhost:2181"},
		{"zk1:2181,zk2:2182,zk3", []string{"zk1:2181", "zk2:2182", "zk3:2181"}, "", "zk1:2181,zk2:2182,zk3:2181"},
		{" zk1:2181 , zk2:2181 ", []string{"zk1:2181", "zk2:2181"}, "", "zk1:2181,zk2:2181"},
		{"zk1:2181,zk2:2181/kafka", []string{"zk1:2181", "zk2:2181"}, "/kafka", "zk1:2181,zk2:2181/kafka"},
		{"zk1:2181/kafka/prod-1", []string{"zk1:2181"}, "/kafka/prod-1", "zk1:2181/kafka/prod-1"},
		{"zk1:2181/", []string{"zk1:2181"}, "", "zk1:2181"}, // "/" alone is no chroot
		{"[::1]:2181", []string{"[::1]:2181"}, "", "[::1]:2181"},
		{"[::1]/c", []string{"[::1]:2181"}, "/c", "[::1]:2181/c"},
		{"127.0.0.1:2181,[fe80::1]:2182/x", []string{"127.0.0.1:2181", "[fe80::1]:2182"}, "/x", "127.0.0.1:2181,[fe80::1]:2182/x"},
	}
	for _, tt := range tests {
		z, err := ParseZKConnect(tt.in)
		if err != nil {
			t.Errorf("ParseZKConnect(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(z.Servers, tt.servers) || z.Chroot != tt.chroot {
			t.Errorf("ParseZKConnect(%q) = %q %q, want %q %q", tt.in, z.Servers, z.Chroot, tt.servers, tt.chroot)
		}
		if z.String() != tt.wantString {
			t.Errorf("ParseZKConnect(%q).String() = %q, want %q", tt.in, z.String(), tt.wantString)
		}
	}
}

func TestParseZKConnectRefuses(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"zk1:2181/kafka/", "chroot \"/kafka/\" must not end with '/'"},
		{"zk1:2181/a//b", "chroot \"/a//b\" has an empty path segment"},
		{"zk1:2181/a/../b", "must not contain \"..\" segments"},
		{"zk1:2181/a/./b", "must not contain \".\" segments"},
		{"zk1:2181/a\x01b", "invalid character U+0001"},
		{"zk1:2181/a\u0085b", "invalid character U+0085"},
		{"zk1:abc", "port must be between 1 and 65535"},
		{"zk1:0", "port must be between 1 and 65535"},
		{"zk1:65536", "port must be between 1 and 65535"},
		{"zk1:", "port must be between 1 and 65535"},
		{":2181", "has no host"},
		{"::1:2181", "put an IPv6 address in brackets"},
		{"[::1:2181", "is not host:port"},
		{"[ ]", "host has a blank or control character"},
		{"a\tb:2181", "host has a blank or control character"},
	}
	for _, tt := range tests {
		_, err := ParseZKConnect(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseZKConnect(%q) err = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

// A ZKConnect built in code gets the same checks through Validate.
func TestZKConnectValidateBuiltInCode(t *testing.T) {
	tests := []struct {
		z    ZKConnect
		want string
	}{
		{ZKConnect{Servers: []string{"zk:2181"}, Chroot: "kafka"}, "chroot \"kafka\" must start with '/'"},
		{ZKConnect{Servers: []string{"zk"}}, "server \"zk\" is not host:port"},
		{ZKConnect{Servers: []string{"zk:99999"}}, "port must be between 1 and 65535"},
		{ZKConnect{Servers: []string{"z k:2181"}}, "host has a blank or control character"},
		{ZKConnect{Servers: []string{"zk:2181"}, Chroot: "/ok"}, ""},
	}
	for _, tt := range tests {
		err := tt.z.validate()
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("validate(%+v) = %v, want %q", tt.z, err, tt.want)
		}
	}
	if !(ZKConnect{}).IsZero() || (ZKConnect{Chroot: "/x"}).IsZero() {
		t.Error("IsZero wrong")
	}
}
