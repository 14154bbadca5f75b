package zkadmin

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/mutationquota"
)

// TestControllerMutationRates reads each level of the quota entities a
// user and client id fall under, with names sanitized as Kafka stores
// them; other quota keys do not count; a change is seen at once although
// the reads are answered from watches; an undecodable znode is named and
// left out.
func TestControllerMutationRates(t *testing.T) {
	e := newAdminEnv(t, nil, nil)
	put := func(path, data string) {
		t.Helper()
		if _, err := e.zk.CreateRecursive(e.ctx, path, []byte(data), Persistent); err != nil {
			if !errors.Is(err, ErrNodeExists) {
				t.Fatal(err)
			}
			if _, err := e.zk.Set(e.ctx, path, []byte(data), AnyVersion); err != nil {
				t.Fatal(err)
			}
		}
	}
	rate := func(v string) string { return `{"version":1,"config":{"controller_mutation_rate":"` + v + `"}}` }
	// "CN=alice,O=x" and "app 1" as Kafka's Sanitizer writes them.
	put("/config/users/CN%3Dalice%2CO%3Dx/clients/app%201", rate("1"))
	put("/config/users/CN%3Dalice%2CO%3Dx/clients/<default>", rate("2"))
	put("/config/users/CN%3Dalice%2CO%3Dx", rate("3"))
	put("/config/users/<default>/clients/app%201", rate("4"))
	put("/config/users/<default>/clients/<default>", rate("5"))
	put("/config/users/<default>", `{"version":1,"config":{"producer_byte_rate":"1024","controller_mutation_rate":"6.5"}}`)
	put("/config/clients/app%201", rate("7"))
	put("/config/clients/<default>", `{"version":1,"config":{"producer_byte_rate":"1024"}}`)

	read := func(user, client string) mutationquota.Rates {
		t.Helper()
		r, err := e.admin.ControllerMutationRates(e.ctx, user, client)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	got := read("CN=alice,O=x", "app 1")
	want := []float64{1, 2, 3, 4, 5, 6.5, 7}
	for i, p := range []*float64{got.UserClient, got.UserDefaultClient, got.User, got.DefaultUserClient,
		got.DefaultUserDefaultClient, got.DefaultUser, got.Client} {
		if p == nil || *p != want[i] {
			t.Fatalf("level %d: got %v, want %v (%+v)", i, p, want[i], got)
		}
	}
	if got.DefaultClient != nil {
		t.Fatalf("a quota of another key counted: %v", *got.DefaultClient)
	}
	if l, ok := mutationquota.Resolve("CN=alice,O=x", "app 1", got); !ok || l.Rate != 1 {
		t.Fatalf("resolved %+v %v", l, ok)
	}
	// Another user falls to the defaults; without a client id, to the
	// user levels only.
	other := read("bob", "app 1")
	if other.UserClient != nil || other.User != nil || *other.DefaultUserClient != 4 {
		t.Fatalf("bob: %+v", other)
	}
	if noClient := read("bob", ""); noClient.DefaultUser == nil || *noClient.DefaultUser != 6.5 || noClient.DefaultUserClient != nil {
		t.Fatalf("no client id: %+v", noClient)
	}

	// A change shows although the last reads left watches to answer from.
	put("/config/users/CN%3Dalice%2CO%3Dx/clients/app%201", rate("0.5"))
	deadline := time.Now().Add(10 * time.Second)
	for got = read("CN=alice,O=x", "app 1"); *got.UserClient != 0.5; got = read("CN=alice,O=x", "app 1") {
		if time.Now().After(deadline) {
			t.Fatalf("the change never showed: %v", *got.UserClient)
		}
		time.Sleep(10 * time.Millisecond)
	}

	put("/config/clients/app%201", `{"version":1,"config":{"controller_mutation_rate":"fast"}}`)
	put("/config/users/<default>", `{"config":`)
	var r mutationquota.Rates
	var err error
	for deadline = time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r, err = e.admin.ControllerMutationRates(e.ctx, "bob", "app 1")
		if err != nil || time.Now().After(deadline) {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), `/config/clients/app%201: controller_mutation_rate="fast" is not a number`) ||
		!strings.Contains(err.Error(), "/config/users/<default>") {
		t.Fatalf("error %v", err)
	}
	if r.Client != nil || r.DefaultUser != nil || r.DefaultUserClient == nil {
		t.Fatalf("the unreadable quotas must be left out, the others kept: %+v", r)
	}
}
