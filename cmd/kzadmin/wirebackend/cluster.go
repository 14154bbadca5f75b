package wirebackend

import (
	"context"
	"net"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// cluster reads the live brokers and the controller: DescribeCluster from
// the controller, or brokers-only Metadata where DescribeCluster is not
// served (Kafka before 2.8).
//
// kzadmind lists itself among the brokers, since that is how clients find
// the controller, but it hosts no replicas. A controller that serves
// DescribeTopicPartitions is kzadmind (a ZooKeeper-mode Kafka broker never
// serves it), so it is left out of the brokers, as the ZooKeeper backend,
// which reads /brokers/ids, has them.
func (b *Backend) cluster(ctx context.Context) (*backend.ClusterView, error) {
	v := &backend.ClusterView{Controller: -1}
	req := kmsg.NewPtrDescribeClusterRequest()
	resp, err := responseAs[*kmsg.DescribeClusterResponse](b.controllerRequest(ctx, req))
	switch {
	case unsupported(err):
		return b.metadataCluster(ctx)
	case err != nil:
		return nil, err
	case resp.ErrorCode != 0:
		return nil, codeError("", resp.ErrorCode, resp.ErrorMessage)
	}
	v.Controller = resp.ControllerID
	kzadmind, err := b.controllerServesDTP(ctx)
	if err != nil {
		return nil, err
	}
	for _, br := range resp.Brokers {
		if br.NodeID == v.Controller && kzadmind {
			continue
		}
		vb := backend.Broker{ID: br.NodeID, Endpoints: []string{net.JoinHostPort(br.Host, strconv.Itoa(int(br.Port)))}}
		if br.Rack != nil {
			vb.Rack, vb.HasRack = *br.Rack, true
		}
		v.Brokers = append(v.Brokers, vb)
	}
	sort.Slice(v.Brokers, func(i, j int) bool { return v.Brokers[i].ID < v.Brokers[j].ID })
	return v, nil
}

func (b *Backend) metadataCluster(ctx context.Context) (*backend.ClusterView, error) {
	m, err := b.metadata(ctx, []string{})
	if err != nil {
		return nil, err
	}
	v := &backend.ClusterView{Controller: m.ControllerID}
	for _, br := range m.Brokers {
		vb := backend.Broker{ID: br.NodeID, Endpoints: []string{net.JoinHostPort(br.Host, strconv.Itoa(int(br.Port)))}}
		if br.Rack != nil {
			vb.Rack, vb.HasRack = *br.Rack, true
		}
		v.Brokers = append(v.Brokers, vb)
	}
	sort.Slice(v.Brokers, func(i, j int) bool { return v.Brokers[i].ID < v.Brokers[j].ID })
	return v, nil
}
