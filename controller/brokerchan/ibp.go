package brokerchan

import "github.com/kzadmin/kzadmin/config"

// RequestVersions are the versions of the three control requests that the
// controller sends at one IBP.
type RequestVersions struct {
	LeaderAndISR   int16
	UpdateMetadata int16
	StopReplica    int16
}

// RequestVersionsAt returns the request versions Kafka's
// ControllerBrokerRequestBatch uses at v (controller reference §5.3).
func RequestVersionsAt(v config.IBP) RequestVersions {
	return RequestVersions{
		LeaderAndISR:   leaderAndISRVersion(v),
		UpdateMetadata: updateMetadataVersion(v),
		StopReplica:    stopReplicaVersion(v),
	}
}

func leaderAndISRVersion(v config.IBP) int16 {
	switch {
	case v.AtLeast(config.IBP3_4_IV0):
		return 7
	case v.AtLeast(config.IBP3_2_IV0):
		return 6
	case v.AtLeast(config.IBP2_8_IV1):
		return 5
	case v.AtLeast(config.IBP2_4_IV1):
		return 4
	case v.AtLeast(config.IBP2_4_IV0):
		return 3
	case v.AtLeast(config.IBP2_2_IV0):
		return 2
	case v.AtLeast(config.IBP1_0_IV0):
		return 1
	}
	return 0
}

func updateMetadataVersion(v config.IBP) int16 {
	switch {
	case v.AtLeast(config.IBP3_4_IV0):
		return 8
	case v.AtLeast(config.IBP2_8_IV1):
		return 7
	case v.AtLeast(config.IBP2_4_IV1):
		return 6
	case v.AtLeast(config.IBP2_2_IV0):
		return 5
	case v.AtLeast(config.IBP1_0_IV0):
		return 4
	case v.AtLeast(config.IBP0_10_2_IV0):
		return 3
	case v.AtLeast(config.IBP0_10_0_IV1):
		return 2
	case v.AtLeast(config.IBP0_9_0):
		return 1
	}
	return 0
}

// stopReplicaVersion is Kafka's choice except from 3.4-IV0, where Kafka
// sends v4 and we send v3. kmsg (v1.15.1) encodes v4's IsKRaftController
// after ControllerEpoch, while Kafka's schema has it right after
// ControllerId (as kmsg does for LeaderAndIsr and UpdateMetadata): a real
// 3.9 broker then reads controller epoch 256 from epoch 1 and refuses
// every later request of this controller as STALE_CONTROLLER_EPOCH (seen
// with integration/wireapi's DeleteTopics against real brokers). v4 only
// adds that flag, which a ZooKeeper controller leaves false, so v3 says
// the same thing.
func stopReplicaVersion(v config.IBP) int16 {
	switch {
	case v.AtLeast(config.IBP2_6_IV0):
		return 3
	case v.AtLeast(config.IBP2_4_IV1):
		return 2
	case v.AtLeast(config.IBP2_2_IV0):
		return 1
	}
	return 0
}
