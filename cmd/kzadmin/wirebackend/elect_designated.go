package wirebackend

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/controller/handler"
)

// electLeadersV3 is the ElectLeaders version that carries DesiredLeaders.
const electLeadersV3 int16 = 3

// electDesignated sends ElectLeaders v3 with a desired leader for every
// listed partition (seed 003). The request is the handler's own codec,
// since kmsg stops at v2. kgo would send it at v3 whatever the controller
// advertises (the type has one version), and a Kafka controller closes
// the connection on a version it does not serve, so the controller's
// ApiVersions is checked first.
func (b *Backend) electDesignated(ctx context.Context, req backend.ElectionRequest) (*backend.ElectionResult, error) {
	if len(req.Partitions) == 0 || len(req.Leaders) != len(req.Partitions) {
		return nil, &UsageError{Msg: "a designated election needs one leader per partition"}
	}
	kreq := handler.NewElectLeadersV3Request()
	kreq.Topics = designatedTopics(req.Partitions, req.Leaders)
	// Checked on every attempt: a retry may reach another controller.
	return b.sendElection(ctx, req, kreq, &kreq.TimeoutMillis, func(ctx context.Context, r kmsg.Request) (kmsg.Response, error) {
		if err := b.requireElectV3(ctx); err != nil {
			return nil, err
		}
		return b.controllerRequest(ctx, r)
	})
}

// requireElectV3 fails unless the controller serves ElectLeaders v3.
func (b *Backend) requireElectV3(ctx context.Context) error {
	req := kmsg.NewPtrApiVersionsRequest()
	// v3+ must name the client software, or the answer is INVALID_REQUEST.
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kzadmin", "1.0.0"
	resp, err := responseAs[*kmsg.ApiVersionsResponse](b.controllerRequest(ctx, req))
	if err != nil {
		return err
	}
	if resp.ErrorCode != 0 {
		return codeError("", resp.ErrorCode, nil)
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == kmsg.ElectLeaders.Int16() {
			if k.MaxVersion >= electLeadersV3 {
				return nil
			}
			return &backend.Error{Message: fmt.Sprintf("the controller serves ElectLeaders up to v%d; a designated "+
				"election needs v3 (DesiredLeaders), which kzadmind serves and Kafka's controller does not", k.MaxVersion)}
		}
	}
	return &backend.Error{Message: "the controller does not serve ElectLeaders"}
}

// designatedTopics groups partitions and their desired leaders by topic,
// in the order given; the i-th desired leader goes with the i-th partition.
func designatedTopics(tps []backend.TopicPartition, leaders []int32) []handler.ElectLeadersV3Topic {
	var out []handler.ElectLeadersV3Topic
	index := map[string]int{}
	for i, tp := range tps {
		j, ok := index[tp.Topic]
		if !ok {
			j = len(out)
			index[tp.Topic] = j
			out = append(out, handler.ElectLeadersV3Topic{Topic: tp.Topic, DesiredLeaders: []int32{}})
		}
		out[j].Partitions = append(out[j].Partitions, tp.Partition)
		out[j].DesiredLeaders = append(out[j].DesiredLeaders, leaders[i])
	}
	return out
}
