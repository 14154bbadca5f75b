package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// adminMux registers a few admin keys the way the controller will.
func adminMux(t *testing.T) *Mux {
	t.Helper()
	m := NewMux()
	for _, key := range []int16{3, 19, 20, 60} {
		vr, _ := ZKBrokerRange(key)
		mustRegister(t, m, Route{VersionRange: vr, Handler: metadataHandler(nil)})
	}
	return m
}

func wantApiKeys(m *Mux) []kmsg.ApiVersionsResponseApiKey {
	var out []kmsg.ApiVersionsResponseApiKey
	for _, vr := range m.APIs() {
		out = append(out, apiKeyEntry(vr))
	}
	return out
}

func sameApiKeys(a, b []kmsg.ApiVersionsResponseApiKey) bool {
	return slices.EqualFunc(a, b, func(x, y kmsg.ApiVersionsResponseApiKey) bool {
		return x.ApiKey == y.ApiKey && x.MinVersion == y.MinVersion && x.MaxVersion == y.MaxVersion
	})
}

func TestApiVersionsEveryVersion(t *testing.T) {
	m := adminMux(t)
	features := func(resp *kmsg.ApiVersionsResponse) {
		resp.SupportedFeatures = []kmsg.ApiVersionsResponseSupportedFeature{
			{Name: "kraft.version", MinVersion: 0, MaxVersion: 1},
			{Name: "metadata.version", MinVersion: 1, MaxVersion: 21},
		}
		resp.FinalizedFeaturesEpoch = 7
		resp.FinalizedFeatures = []kmsg.ApiVersionsResponseFinalizedFeature{{Name: "metadata.version", MinVersionLevel: 21, MaxVersionLevel: 21}}
		resp.ErrorCode = 99 // the server must overwrite what is not the callback's
	}
	_, addr := startServer(t, Config{Mux: m, Features: features})
	c := dialRaw(t, addr)
	for v := int16(0); v <= 4; v++ {
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version = v
		req.ClientSoftwareName, req.ClientSoftwareVersion = "kzadmin-test", "1.0.0"
		c.sendReq(req, int32(100+v), strPtr("cli"))
		// ApiVersions answers with response header v0 even for v3+.
		resp := c.readResp(18, v, int32(100+v), false).(*kmsg.ApiVersionsResponse)
		if resp.ErrorCode != 0 || !sameApiKeys(resp.ApiKeys, wantApiKeys(m)) {
			t.Fatalf("v%d: error %d, keys %v", v, resp.ErrorCode, resp.ApiKeys)
		}
		if v < 3 {
			continue
		}
		names := []string{}
		for _, f := range resp.SupportedFeatures {
			names = append(names, f.Name)
		}
		want := []string{"metadata.version"} // v3 leaves out MinVersion 0 (KAFKA-17011)
		if v == 4 {
			want = []string{"kraft.version", "metadata.version"}
		}
		if !slices.Equal(names, want) || resp.FinalizedFeaturesEpoch != 7 || len(resp.FinalizedFeatures) != 1 {
			t.Fatalf("v%d features: supported %v, epoch %d, finalized %v", v, names, resp.FinalizedFeaturesEpoch, resp.FinalizedFeatures)
		}
	}
}

func TestApiVersionsDefaultFeatures(t *testing.T) {
	_, addr := startServer(t, Config{})
	c := dialRaw(t, addr)
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 4
	req.ClientSoftwareName, req.ClientSoftwareVersion = "a", "1"
	c.sendReq(req, 1, nil)
	resp := c.readResp(18, 4, 1, false).(*kmsg.ApiVersionsResponse)
	if resp.FinalizedFeaturesEpoch != -1 || len(resp.SupportedFeatures)+len(resp.FinalizedFeatures) != 0 {
		t.Fatalf("features %+v", resp)
	}
	if !sameApiKeys(resp.ApiKeys, []kmsg.ApiVersionsResponseApiKey{{ApiKey: 18, MinVersion: 0, MaxVersion: 4}}) {
		t.Fatalf("empty mux advertises %v", resp.ApiKeys)
	}
}

// TestApiVersionsUnsupportedVersion checks the exact bytes of Kafka's
// answer to a version it does not know, and that the connection stays
// usable.
func TestApiVersionsUnsupportedVersion(t *testing.T) {
	_, addr := startServer(t, Config{Mux: adminMux(t)})
	c := dialRaw(t, addr)
	for i, v := range []int16{5, 127, -1} {
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version = v // v5 and 127 are sent flexible (header v2), -1 not
		req.ClientSoftwareName, req.ClientSoftwareVersion = "x", "1"
		corr := int32(7 + i)
		c.sendReq(req, corr, strPtr("cli"))
		want := binary.BigEndian.AppendUint32(nil, uint32(corr))
		want = kbin.AppendInt16(want, 35) // UNSUPPORTED_VERSION
		want = kbin.AppendInt32(want, 1)  // one ApiKeys entry, non-compact
		want = kbin.AppendInt16(want, 18) // ApiVersions
		want = kbin.AppendInt16(want, 0)  // min
		want = kbin.AppendInt16(want, 4)  // max; no throttle, no tags: v0
		if got := c.readFrame(); !bytes.Equal(got, want) {
			t.Fatalf("v%d: response % x, want % x", v, got, want)
		}
	}
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 4
	req.ClientSoftwareName, req.ClientSoftwareVersion = "x", "1"
	c.sendReq(req, 20, nil)
	if resp := c.readResp(18, 4, 20, false).(*kmsg.ApiVersionsResponse); resp.ErrorCode != 0 {
		t.Fatalf("retry at v4: error %d", resp.ErrorCode)
	}
}

func TestApiVersionsInvalidSoftware(t *testing.T) {
	_, addr := startServer(t, Config{Mux: adminMux(t)})
	c := dialRaw(t, addr)
	for i, sw := range [][2]string{{"-bad", "1"}, {"ok", ""}, {"a b", "1"}, {"ok", "1."}} {
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version = 3
		req.ClientSoftwareName, req.ClientSoftwareVersion = sw[0], sw[1]
		c.sendReq(req, int32(i), nil)
		resp := c.readResp(18, 3, int32(i), false).(*kmsg.ApiVersionsResponse)
		if resp.ErrorCode != 42 || len(resp.ApiKeys) != 0 {
			t.Fatalf("%q: error %d, %d keys; want INVALID_REQUEST and none", sw, resp.ErrorCode, len(resp.ApiKeys))
		}
	}
}

func TestValidSoftware(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "apache-kafka-java": true, "3.9.0": true, "1.0-SNAPSHOT": true, "a.b-c": true,
		"": false, "-a": false, "a-": false, ".a": false, "a.": false, "a_b": false, "a b": false, "é": false,
	} {
		if validSoftware(s) != want {
			t.Errorf("validSoftware(%q) = %v", s, !want)
		}
	}
}

func TestApiVersionsUndecodableClosesConnection(t *testing.T) {
	_, addr := startServer(t, Config{})
	c := dialRaw(t, addr)
	// v3 header v2 with a null client id and no tags, then a body whose
	// compact string claims 100 bytes.
	frame := headerBytes(18, 3, 1, 0xff, 0xff, 0, 101, 'a')
	c.write(frameOf(frame))
	c.expectClosed()
}

// TestApiVersionsKgo uses franz-go's client, which first sends v5, gets the
// v0-shaped UNSUPPORTED_VERSION answer and retries with v4.
func TestApiVersionsKgo(t *testing.T) {
	m := adminMux(t)
	_, addr := startServer(t, Config{Mux: m})
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("ApiVersions via kgo: %v", err)
	}
	if resp.Version != 4 || resp.ErrorCode != 0 || !sameApiKeys(resp.ApiKeys, wantApiKeys(m)) {
		t.Fatalf("kgo got v%d error %d keys %v", resp.Version, resp.ErrorCode, resp.ApiKeys)
	}
}

// TestApiVersionsSarama uses sarama's broker connection, which sends v4
// when configured for Kafka 3.9, then asks again at v0 and v3.
func TestApiVersionsSarama(t *testing.T) {
	m := adminMux(t)
	_, addr := startServer(t, Config{Mux: m})
	conf := sarama.NewConfig()
	conf.Version = sarama.V3_9_0_0
	conf.Net.DialTimeout = waitTimeout
	b := sarama.NewBroker(addr)
	if err := b.Open(conf); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	if ok, err := b.Connected(); !ok || err != nil {
		t.Fatalf("sarama Connected = %v, %v", ok, err)
	}
	for _, v := range []int16{0, 3, 4} {
		resp, err := b.ApiVersions(&sarama.ApiVersionsRequest{Version: v, ClientSoftwareName: "sarama", ClientSoftwareVersion: "1.61.1"})
		if err != nil {
			t.Fatalf("sarama ApiVersions v%d: %v", v, err)
		}
		var got []kmsg.ApiVersionsResponseApiKey
		for _, k := range resp.ApiKeys {
			got = append(got, kmsg.ApiVersionsResponseApiKey{ApiKey: k.ApiKey, MinVersion: k.MinVersion, MaxVersion: k.MaxVersion})
		}
		if resp.ErrorCode != 0 || !sameApiKeys(got, wantApiKeys(m)) {
			t.Fatalf("sarama v%d: error %d keys %v", v, resp.ErrorCode, got)
		}
	}
}
