package daemon

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

func TestFinalizedFeaturesFrom(t *testing.T) {
	for _, tc := range []struct {
		name      string
		data      string
		version   int32
		exists    bool
		wantEpoch int64
		want      map[string]int16
		wantErr   bool
	}{
		{name: "absent", wantEpoch: -1},
		{name: "enabled without features", data: `{"version":2,"status":1,"features":{}}`, version: 0, exists: true, wantEpoch: 0},
		{name: "enabled, epoch is the version", data: `{"version":2,"status":1,"features":{"group.version":{"max_version_level":1}}}`,
			version: 7, exists: true, wantEpoch: 7, want: map[string]int16{"group.version": 1}},
		{name: "version 1 levels", data: `{"version":1,"status":1,"features":{"x":{"min_version_level":1,"max_version_level":3}}}`,
			version: 2, exists: true, wantEpoch: 2, want: map[string]int16{"x": 3}},
		{name: "disabled", data: `{"version":1,"status":0,"features":{}}`, version: 3, exists: true, wantEpoch: -1},
		{name: "undecodable", data: `{"version":`, version: 4, exists: true, wantEpoch: -1, wantErr: true},
		{name: "unknown status", data: `{"version":2,"status":5,"features":{}}`, version: 4, exists: true, wantEpoch: -1, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := finalizedFeaturesFrom([]byte(tc.data), zkadmin.Stat{Version: tc.version}, tc.exists)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if got.epoch != tc.wantEpoch || len(got.features) != len(tc.want) {
				t.Fatalf("got %+v, want epoch %d features %v", got, tc.wantEpoch, tc.want)
			}
			for k, v := range tc.want {
				if got.features[k] != v {
					t.Fatalf("got %+v, want features %v", got, tc.want)
				}
			}
		})
	}
}

func TestFinalizedFeaturesFill(t *testing.T) {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.FinalizedFeatures = []kmsg.ApiVersionsResponseFinalizedFeature{{Name: "stale"}}
	finalizedFeatures{epoch: 3, features: map[string]int16{"b": 2, "a": 1}}.fill(resp)
	want := []kmsg.ApiVersionsResponseFinalizedFeature{
		{Name: "a", MinVersionLevel: 1, MaxVersionLevel: 1},
		{Name: "b", MinVersionLevel: 2, MaxVersionLevel: 2},
	}
	same := resp.FinalizedFeaturesEpoch == 3 && len(resp.FinalizedFeatures) == len(want)
	for i := range want {
		same = same && resp.FinalizedFeatures[i].Name == want[i].Name &&
			resp.FinalizedFeatures[i].MinVersionLevel == want[i].MinVersionLevel &&
			resp.FinalizedFeatures[i].MaxVersionLevel == want[i].MaxVersionLevel
	}
	if !same {
		t.Fatalf("got epoch %d features %+v, want 3 and %+v", resp.FinalizedFeaturesEpoch, resp.FinalizedFeatures, want)
	}
	noFinalizedFeatures.fill(resp)
	if resp.FinalizedFeaturesEpoch != -1 || resp.FinalizedFeatures != nil {
		t.Fatalf("none: got epoch %d features %+v", resp.FinalizedFeaturesEpoch, resp.FinalizedFeatures)
	}
}

// TestApiVersionsFollowsFeatureZnode: as a ZooKeeper-mode broker does,
// kzadmind's ApiVersions v3+ advertises the features /feature finalizes,
// with the znode's version as their epoch, and follows the znode as
// other writers change it; a Disabled, undecodable or absent /feature
// finalizes nothing (epoch -1).
func TestApiVersionsFollowsFeatureZnode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	chroot := sharedZK.Chroot(t, "daemon")
	d := startNode(ctx, t, chroot, 4101)
	zk, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{sharedZK.Addr(t)}, Chroot: chroot})
	if err != nil {
		t.Fatal(err)
	}
	defer zk.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.KafkaAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	node := cl.SeedBrokers()[0]

	// waitFor asks ApiVersions (v3 and v4) until they advertise epoch and
	// features.
	waitFor := func(step string, epoch int64, features map[string]int16) {
		t.Helper()
		var last *kmsg.ApiVersionsResponse
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			matched := true
			for _, v := range []int16{3, 4} {
				req := kmsg.NewPtrApiVersionsRequest()
				req.SetVersion(v)
				req.ClientSoftwareName, req.ClientSoftwareVersion = "kzadmin-test", "1"
				resp, err := node.Request(ctx, req)
				if err != nil {
					t.Fatalf("%s: ApiVersions v%d: %v", step, v, err)
				}
				last = resp.(*kmsg.ApiVersionsResponse)
				matched = matched && last.FinalizedFeaturesEpoch == epoch && len(last.FinalizedFeatures) == len(features)
				for _, f := range last.FinalizedFeatures {
					matched = matched && features[f.Name] == f.MaxVersionLevel && f.MinVersionLevel == f.MaxVersionLevel
				}
			}
			if matched {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s: ApiVersions advertises epoch %d features %+v, want %d %v",
			step, last.FinalizedFeaturesEpoch, last.FinalizedFeatures, epoch, features)
	}

	// The controller writes /feature Enabled with no features when it takes
	// office, as Kafka's does: epoch 0, the znode's first version.
	waitFor("after failover", 0, nil)
	set := func(step, data string) {
		t.Helper()
		_, st, err := zk.Get(ctx, znodes.FeaturePath)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := zk.Set(ctx, znodes.FeaturePath, []byte(data), st.Version); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	set("finalize", `{"version":2,"status":1,"features":{"group.version":{"max_version_level":1},"a.feature":{"max_version_level":3}}}`)
	waitFor("after a writer finalized two features", 1, map[string]int16{"group.version": 1, "a.feature": 3})
	set("disable", `{"version":1,"status":0,"features":{}}`)
	waitFor("disabled", -1, nil)
	set("enable again", `{"version":2,"status":1,"features":{}}`)
	waitFor("enabled again", 3, nil)
	set("garble", `not json`)
	waitFor("undecodable", -1, nil)
	if err := zk.Delete(ctx, znodes.FeaturePath, -1); err != nil {
		t.Fatal(err)
	}
	waitFor("deleted", -1, nil)
	if _, err := zk.Create(ctx, znodes.FeaturePath, []byte(`{"version":2,"status":1,"features":{}}`), zkadmin.Persistent); err != nil &&
		!errors.Is(err, zkadmin.ErrNodeExists) {
		t.Fatal(err)
	}
	waitFor("created again", 0, nil)
}
