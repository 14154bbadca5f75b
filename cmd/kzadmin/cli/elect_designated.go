package cli

import (
	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// designate completes a designated election request with its leaders:
// --leader for --topic and --partition, or each JSON entry's "leader"
// (kafka-leader-election's file, plus that field). Other election types
// refuse --leader.
func designate(cmd *cobra.Command, req *backend.ElectionRequest, leader int32, jsonPath string) error {
	leaderSet := cmd.Flags().Changed("leader")
	if req.Type != backend.Designated {
		if leaderSet {
			return usagef("--leader is only for --election-type designated")
		}
		return nil
	}
	switch {
	case req.Partitions == nil:
		return usagef("a designated election names its partitions: --topic and --partition with --leader, or --path-to-json-file")
	case jsonPath != "":
		if leaderSet {
			return usagef("--leader goes with --topic; the JSON file gives a \"leader\" per entry")
		}
		leaders, err := readDesignatedLeaders(jsonPath)
		if err != nil {
			return err
		}
		req.Leaders = leaders
	case !leaderSet || leader < 0:
		return usagef("--election-type designated needs --leader (a broker id)")
	default:
		req.Leaders = []int32{leader}
	}
	return nil
}

// readDesignatedLeaders reads the "leader" of every entry of an election
// file, in file order (readElectionPartitions reads the partitions).
func readDesignatedLeaders(path string) ([]int32, error) {
	var f struct {
		Partitions []struct {
			Leader *int32 `json:"leader"`
		} `json:"partitions"`
	}
	if err := readJSONFile("--path-to-json-file", path, &f); err != nil {
		return nil, err
	}
	out := make([]int32, 0, len(f.Partitions))
	for i, p := range f.Partitions {
		if p.Leader == nil || *p.Leader < 0 {
			return nil, usagef("--path-to-json-file %s: entry %d needs \"leader\" (a broker id) for a designated election", path, i)
		}
		out = append(out, *p.Leader)
	}
	return out, nil
}
