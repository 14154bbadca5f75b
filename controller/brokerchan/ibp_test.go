package brokerchan

import (
	"testing"

	"github.com/kzadmin/kzadmin/config"
)

// TestIBPRequestVersions lists every IBP a ZooKeeper-mode broker accepts,
// oldest first, with the LeaderAndIsr, UpdateMetadata and StopReplica
// versions Kafka's controller sends at it (reference §5.3). It also pins
// the order and the names of the table.
func TestIBPRequestVersions(t *testing.T) {
	rows := []struct {
		name         string
		lai, um, stp int16
	}{
		{"0.8.0", 0, 0, 0}, {"0.8.1", 0, 0, 0}, {"0.8.2", 0, 0, 0},
		{"0.9.0", 0, 1, 0},
		{"0.10.0-IV0", 0, 1, 0}, {"0.10.0-IV1", 0, 2, 0},
		{"0.10.1-IV0", 0, 2, 0}, {"0.10.1-IV1", 0, 2, 0}, {"0.10.1-IV2", 0, 2, 0},
		{"0.10.2-IV0", 0, 3, 0},
		{"0.11.0-IV0", 0, 3, 0}, {"0.11.0-IV1", 0, 3, 0}, {"0.11.0-IV2", 0, 3, 0},
		{"1.0-IV0", 1, 4, 0}, {"1.1-IV0", 1, 4, 0},
		{"2.0-IV0", 1, 4, 0}, {"2.0-IV1", 1, 4, 0},
		{"2.1-IV0", 1, 4, 0}, {"2.1-IV1", 1, 4, 0}, {"2.1-IV2", 1, 4, 0},
		{"2.2-IV0", 2, 5, 1}, {"2.2-IV1", 2, 5, 1},
		{"2.3-IV0", 2, 5, 1}, {"2.3-IV1", 2, 5, 1},
		{"2.4-IV0", 3, 5, 1}, {"2.4-IV1", 4, 6, 2},
		{"2.5-IV0", 4, 6, 2},
		{"2.6-IV0", 4, 6, 3},
		{"2.7-IV0", 4, 6, 3}, {"2.7-IV1", 4, 6, 3}, {"2.7-IV2", 4, 6, 3},
		{"2.8-IV0", 4, 6, 3}, {"2.8-IV1", 5, 7, 3},
		{"3.0-IV0", 5, 7, 3}, {"3.0-IV1", 5, 7, 3},
		{"3.1-IV0", 5, 7, 3},
		{"3.2-IV0", 6, 7, 3},
		{"3.3-IV0", 6, 7, 3}, {"3.3-IV1", 6, 7, 3}, {"3.3-IV2", 6, 7, 3}, {"3.3-IV3", 6, 7, 3},
		// Kafka sends StopReplica v4 from 3.4-IV0; we stay at v3 (see
		// stopReplicaVersion: kmsg misplaces v4's IsKRaftController).
		{"3.4-IV0", 7, 8, 3},
		{"3.5-IV0", 7, 8, 3}, {"3.5-IV1", 7, 8, 3}, {"3.5-IV2", 7, 8, 3},
		{"3.6-IV0", 7, 8, 3}, {"3.6-IV1", 7, 8, 3}, {"3.6-IV2", 7, 8, 3},
		{"3.7-IV0", 7, 8, 3}, {"3.7-IV1", 7, 8, 3}, {"3.7-IV2", 7, 8, 3}, {"3.7-IV3", 7, 8, 3}, {"3.7-IV4", 7, 8, 3},
		{"3.8-IV0", 7, 8, 3},
		{"3.9-IV0", 7, 8, 3},
	}
	if len(rows) != int(config.IBPLatest)+1 {
		t.Fatalf("config knows %d versions, the table %d", int(config.IBPLatest)+1, len(rows))
	}
	for i, r := range rows {
		v := config.IBP(i)
		if v.String() != r.name {
			t.Errorf("config.IBP(%d) = %s, want %s", i, v, r.name)
		}
		want := RequestVersions{LeaderAndISR: r.lai, UpdateMetadata: r.um, StopReplica: r.stp}
		if got := RequestVersionsAt(v); got != want {
			t.Errorf("%s: RequestVersionsAt = %+v, want %+v", r.name, got, want)
		}
	}
}
