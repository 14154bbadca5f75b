package zkadmin

import (
	"errors"
	"testing"
)

func TestChrootMapping(t *testing.T) {
	tests := []struct {
		root       chroot
		path, full string
	}{
		{"", "/", "/"},
		{"", "/a/b", "/a/b"},
		{"/kafka", "/", "/kafka"},
		{"/kafka", "/brokers/ids", "/kafka/brokers/ids"},
		{"/a/b", "/c", "/a/b/c"},
	}
	for _, tt := range tests {
		if got := tt.root.full(tt.path); got != tt.full {
			t.Errorf("%q.full(%q) = %q, want %q", tt.root, tt.path, got, tt.full)
		}
		got, ok := tt.root.strip(tt.full)
		if !ok || got != tt.path {
			t.Errorf("%q.strip(%q) = %q, %v; want %q", tt.root, tt.full, got, ok, tt.path)
		}
	}
	for _, outside := range []string{"/", "/kafka2", "/kafk", "/other/kafka"} {
		if got, ok := chroot("/kafka").strip(outside); ok {
			t.Errorf("strip(%q) = %q, true; want outside", outside, got)
		}
	}
}

func TestNormaliseChroot(t *testing.T) {
	tests := []struct {
		in      string
		want    chroot
		wantErr bool
	}{
		{"", "", false},
		{"/", "", false},
		{"/kafka", "/kafka", false},
		{"/kafka/", "/kafka", false},
		{"/a/b", "/a/b", false},
		{"kafka", "", true},
		{"/a//b", "", true},
		{"/a/../b", "", true},
	}
	for _, tt := range tests {
		got, err := normaliseChroot(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("normaliseChroot(%q) = %q, %v; want %q, err=%v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestValidatePath(t *testing.T) {
	good := []string{"/", "/a", "/a/b", "/brokers/topics/my-topic.1_x", "/a/.b", "/a/b.."}
	for _, p := range good {
		if err := validatePath(p, false); err != nil {
			t.Errorf("validatePath(%q) = %v, want ok", p, err)
		}
	}
	bad := []string{"", "a", "/a/", "//", "/a//b", "/a/./b", "/a/..", "/a/\x00", "/a\tb", "/a/\u0085"}
	for _, p := range bad {
		if err := validatePath(p, false); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("validatePath(%q) = %v, want ErrInvalidPath", p, err)
		}
	}
	if err := validatePath("/a/", true); err != nil {
		t.Errorf("sequential /a/ = %v, want ok", err)
	}
	if err := validatePath("/a//", true); err == nil {
		t.Errorf("sequential /a// accepted")
	}
}

func TestParentOf(t *testing.T) {
	for p, want := range map[string]string{"/a": "/", "/a/b": "/a", "/a/b/c": "/a/b", "/a/": "/a"} {
		if got := parentOf(p); got != want {
			t.Errorf("parentOf(%q) = %q, want %q", p, got, want)
		}
	}
}
