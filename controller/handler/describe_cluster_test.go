package handler

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/znodes"
)

func hmetaDCReq(version int16, endpointType int8, ops bool) *kmsg.DescribeClusterRequest {
	r := kmsg.NewPtrDescribeClusterRequest()
	r.Version, r.EndpointType, r.IncludeClusterAuthorizedOperations = version, endpointType, ops
	return r
}

// TestDescribeClusterOperationsNotRequested: INT32_MIN unless asked for
// (apis.md §10), at both versions.
func TestDescribeClusterOperationsNotRequested(t *testing.T) {
	f := newFixture(t, baseView())
	for _, version := range []int16{0, 1} {
		got := f.call(hmetaDCReq(version, 1, false)).(*kmsg.DescribeClusterResponse)
		if got.ErrorCode != 0 || got.ClusterAuthorizedOperations != authorizedOpsNotRequested {
			t.Errorf("v%d: %+v", version, got)
		}
		if got := f.call(hmetaDCReq(version, 1, true)).(*kmsg.DescribeClusterResponse); got.ClusterAuthorizedOperations != 8096 {
			t.Errorf("v%d asked: %d, want 8096", version, got.ClusterAuthorizedOperations)
		}
	}
}

// TestDescribeClusterEndpointTypes: v1's broker type (1) is served; 0
// and every other unknown value get UNSUPPORTED_ENDPOINT_TYPE with
// "Unsupported endpoint type N" (AuthHelper.computeDescribeClusterResponse:
// EndpointType.fromId maps all but 1 and 2 to UNKNOWN); the error answer
// carries no brokers, no cluster id, controller -1 and no operations even
// when asked. v0 cannot carry the field and is always served.
func TestDescribeClusterEndpointTypes(t *testing.T) {
	f := newFixture(t, baseView())
	if got := f.call(hmetaDCReq(1, 1, false)).(*kmsg.DescribeClusterResponse); got.ErrorCode != 0 ||
		got.EndpointType != 1 || len(got.Brokers) != 4 || got.ControllerID != selfID {
		t.Errorf("type 1: %+v", got)
	}
	if got := f.call(hmetaDCReq(0, 2, false)).(*kmsg.DescribeClusterResponse); got.ErrorCode != 0 || len(got.Brokers) != 4 {
		t.Errorf("v0 (no endpoint type on the wire): %+v", got)
	}
	for _, typ := range []int8{0, 3, 127, -1, -128} {
		got := f.call(hmetaDCReq(1, typ, true)).(*kmsg.DescribeClusterResponse)
		msg := fmt.Sprintf("Unsupported endpoint type %d", typ)
		if got.ErrorCode != 115 || got.ErrorMessage == nil || *got.ErrorMessage != msg {
			t.Errorf("type %d: error %d %v, want 115 %q", typ, got.ErrorCode, ptr(got.ErrorMessage), msg)
		}
		if len(got.Brokers) != 0 || got.ClusterID != "" || got.ControllerID != -1 ||
			got.ClusterAuthorizedOperations != authorizedOpsNotRequested {
			t.Errorf("type %d: %+v, want an otherwise empty answer", typ, got)
		}
	}
	got := f.call(hmetaDCReq(1, 2, true)).(*kmsg.DescribeClusterResponse)
	if got.ErrorCode != 114 || len(got.Brokers) != 0 || got.ClusterID != "" || got.ControllerID != -1 ||
		got.ClusterAuthorizedOperations != authorizedOpsNotRequested {
		t.Errorf("type 2: %+v", got)
	}
}

// TestDescribeClusterBrokersAsMetadata: the brokers are the live ones on
// the request's listener, with racks, exactly as Metadata lists them;
// shutting-down brokers are still live; an unknown cluster id is "" (the
// field is not nullable).
func TestDescribeClusterBrokersAsMetadata(t *testing.T) {
	v := baseView()
	v.ClusterID = ""
	v.Brokers[1].ShuttingDown = true
	v.Brokers[2].Endpoints = []znodes.Endpoint{{Listener: "INTERNAL", Host: "h", Port: 1}}
	v.Brokers = append(v.Brokers, v.Brokers[0])
	v.Brokers[3].ID, v.Brokers[3].Rack, v.Brokers[3].Endpoints = 4, rack("z"), ep(9004)
	f := newFixture(t, v)
	md := f.call(mdAll(12)).(*kmsg.MetadataResponse)
	for _, version := range []int16{0, 1} {
		got := f.call(hmetaDCReq(version, 1, false)).(*kmsg.DescribeClusterResponse)
		if got.ClusterID != "" || got.ControllerID != selfID {
			t.Errorf("v%d: cluster %q controller %d", version, got.ClusterID, got.ControllerID)
		}
		var dc, mb []string
		for _, b := range got.Brokers {
			dc = append(dc, fmt.Sprintf("%d %s:%d %s", b.NodeID, b.Host, b.Port, ptr(b.Rack)))
		}
		for _, b := range md.Brokers {
			mb = append(mb, fmt.Sprintf("%d %s:%d %s", b.NodeID, b.Host, b.Port, ptr(b.Rack)))
		}
		slices.Sort(dc)
		slices.Sort(mb)
		want := []string{"1 127.0.0.1:9001 a", "2 127.0.0.1:9002 b", "3000 127.0.0.1:9000 <nil>", "4 127.0.0.1:9004 z"}
		if !slices.Equal(dc, want) || !slices.Equal(mb, want) {
			t.Errorf("v%d: DescribeCluster %q, Metadata %q, want %q", version, dc, mb, want)
		}
	}
}
