package zkacl

import (
	"context"
	"crypto/tls"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
)

func TestDefaultACL(t *testing.T) {
	creatorRead := append(zkadmin.CreatorAllACL(), zkadmin.WorldReadACL()...)
	for _, tc := range []struct {
		setACL bool
		path   string
		want   []zkadmin.ACL
	}{
		{false, "/brokers/topics/t", zkadmin.OpenACL()},
		{false, "/config/users/alice", zkadmin.OpenACL()},
		{true, "/", creatorRead},
		{true, "/brokers/topics/t", creatorRead},
		{true, "/config/topics/t", creatorRead},
		{true, "/config", creatorRead},
		{true, "/config/users", zkadmin.CreatorAllACL()},
		{true, "/config/users/alice", zkadmin.CreatorAllACL()},
		{true, "/config/usersX", zkadmin.CreatorAllACL()}, // a string prefix, as in Kafka
		{true, "/config/brokers/<default>", zkadmin.CreatorAllACL()},
		{true, "/delegation_token/tokens/abc", zkadmin.CreatorAllACL()},
		{true, "/delegation_token/token_changes", creatorRead},
		{true, "/consumers", zkadmin.OpenACL()},
		{true, "/consumers/g1", creatorRead},
	} {
		if got := ForOptions(tc.setACL)(tc.path); !slices.Equal(got, tc.want) {
			t.Errorf("set=%v %s: %v, want %v", tc.setACL, tc.path, got, tc.want)
		}
	}
}

// TestSecureLayoutOnZooKeeper creates Kafka's layout with a digest-
// authenticated session and checks what other sessions may do.
func TestSecureLayoutOnZooKeeper(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := zkserver.Start(ctx, zkserver.Options{HeapMB: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const chroot = "/kafka"
	connect := func(auth string, acl func(string) []zkadmin.ACL) *zkadmin.Client {
		t.Helper()
		opts := zkadmin.Options{Servers: []string{srv.Addr()}, Chroot: chroot, SessionTimeout: 6 * time.Second, ACL: acl}
		if auth != "" {
			opts.Auth = []zkadmin.Auth{{Scheme: "digest", Credentials: []byte(auth)}}
		}
		c, err := zkadmin.Connect(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	owner := connect("kzadmin:secret", ForOptions(true))
	if err := owner.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/brokers/topics/orders", "/config/users/alice", "/config/brokers/<default>",
		"/config/topics/orders", "/delegation_token/tokens/tok"} {
		if _, err := owner.CreateRecursive(ctx, p, []byte(`{}`), zkadmin.Persistent); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	anon := connect("", nil)
	other := connect("someone:else", nil)
	same := connect("kzadmin:secret", nil)
	for _, tc := range []struct {
		path         string
		worldReads   bool
		consumerOpen bool
	}{
		{path: "/brokers/topics/orders", worldReads: true},
		{path: "/config/topics/orders", worldReads: true},
		{path: "/config/users/alice"},
		{path: "/config/brokers/<default>"},
		{path: "/delegation_token/tokens/tok"},
	} {
		for name, c := range map[string]*zkadmin.Client{"anonymous": anon, "other digest": other} {
			_, _, err := c.Get(ctx, tc.path)
			if tc.worldReads != (err == nil) {
				t.Errorf("%s read %s: %v", name, tc.path, err)
			}
			if !tc.worldReads && !errors.Is(err, zkadmin.ErrNoAuth) {
				t.Errorf("%s read %s: %v, want ErrNoAuth", name, tc.path, err)
			}
			if _, err := c.Set(ctx, tc.path, []byte(`{"x":1}`), -1); !errors.Is(err, zkadmin.ErrNoAuth) {
				t.Errorf("%s write %s: %v, want ErrNoAuth", name, tc.path, err)
			}
		}
		if _, err := same.Set(ctx, tc.path, []byte(`{"y":1}`), -1); err != nil {
			t.Errorf("same identity write %s: %v", tc.path, err)
		}
	}
	// /consumers stays open: anyone may create under it.
	if _, err := anon.Create(ctx, "/consumers/g1", nil, zkadmin.Persistent); err != nil {
		t.Errorf("anonymous create under /consumers: %v", err)
	}
	// The chroot itself is not open for writes either.
	root := connect("", nil)
	if _, err := root.Create(ctx, "/intruder", nil, zkadmin.Persistent); !errors.Is(err, zkadmin.ErrNoAuth) {
		t.Errorf("anonymous create at the chroot: %v", err)
	}
	// Secure ACLs need an identity: ZooKeeper refuses them without one.
	unauth := connect("", ForOptions(true))
	if _, err = unauth.Create(ctx, "/consumers/g2", nil, zkadmin.Persistent); !errors.Is(err, zkadmin.ErrInvalidACL) {
		t.Errorf("secure create without auth: %v, want ErrInvalidACL", err)
	}
}

func TestRequireIdentity(t *testing.T) {
	withCert := &tls.Config{Certificates: []tls.Certificate{{}}}
	for _, tc := range []struct {
		setACL bool
		digest string
		tls    *tls.Config
		sasl   zkadmin.SASLMechanism
		ok     bool
	}{
		{false, "", nil, nil, true},
		{true, "ops:pw", nil, nil, true},
		{true, "", withCert, nil, true},
		{true, "", nil, DigestMD5Login{Username: "kafka"}, true},
		{true, " ", nil, nil, false},
		{true, "", &tls.Config{}, nil, false}, // TLS without a client certificate is no identity
	} {
		o := zkadmin.Options{TLS: tc.tls, SASL: tc.sasl}
		ConnectOptions(&o, tc.setACL, tc.digest)
		err := RequireIdentity(tc.setACL, o)
		if (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc, err)
		}
		if err != nil && !strings.Contains(err.Error(), "zookeeper.set.acl=true needs an identity") {
			t.Errorf("message %v", err)
		}
	}
}
