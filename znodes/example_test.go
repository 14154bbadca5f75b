package znodes_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

func ExampleDecodeTopicAssignment() {
	data := []byte(`{"version":3,"partitions":{"0":[4,5,6,1,2,3]},"adding_replicas":{"0":[4,5,6]},` +
		`"removing_replicas":{"0":[1,2,3]},"topic_id":"qSVG0ukwQZqMS74sw61E-w"}`)
	a, err := znodes.DecodeTopicAssignment("orders", data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.TopicID, a.IsReassigning(0), a.TargetReplicas(0), a.OriginalReplicas(0))
	// Output: qSVG0ukwQZqMS74sw61E-w true [4 5 6] [1 2 3]
}

func ExampleTopicAssignment_Encode() {
	// Adding a partition: rewrite the whole znode, keeping the topic id and
	// whatever unknown fields were read.
	a, _ := znodes.DecodeTopicAssignment("orders", []byte(
		`{"version":3,"partitions":{"0":[1,2]},"adding_replicas":{},"removing_replicas":{},"topic_id":"qSVG0ukwQZqMS74sw61E-w","note":"x"}`))
	a.Partitions[1] = []int32{2, 1}
	out, _ := a.Encode()
	fmt.Println(string(out))
	// Output: {"version":3,"partitions":{"0":[1,2],"1":[2,1]},"adding_replicas":{},"removing_replicas":{},"topic_id":"qSVG0ukwQZqMS74sw61E-w","note":"x"}
}

func ExamplePartitionState_Encode() {
	s := znodes.PartitionState{Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}, ControllerEpoch: 7}
	out, _ := s.Encode()
	fmt.Println(string(out))
	// Output: {"controller_epoch":7,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}
}

func ExampleDecodeError() {
	_, err := znodes.DecodeTopicAssignment("foo", []byte(`{"version":3,"partitions":{"0":"1,2"}}`))
	var de *znodes.DecodeError
	if errors.As(err, &de) {
		fmt.Println(de.Znode, de.Field)
	}
	fmt.Println(err)
	// Output:
	// /brokers/topics/foo "partitions"."0"
	// znode /brokers/topics/foo: field "partitions"."0": want array of integers, got string
}

func ExampleNewControllerRegistration() {
	c := znodes.NewControllerRegistration(1, time.UnixMilli(1700000000123))
	out, _ := c.Encode()
	fmt.Println(string(out))
	// Output: {"version":2,"brokerid":1,"timestamp":"1700000000123","kraftControllerEpoch":-1}
}

func ExampleNewConfigChangeNotification() {
	user := znodes.SanitizeEntityName("CN=alice,O=Acme")
	n := znodes.NewConfigChangeNotification(znodes.EntityUsers, znodes.UserClientEntityName(user, znodes.DefaultEntityName))
	out, _ := n.Encode()
	fmt.Println(n.ConfigEntityPath())
	fmt.Println(string(out))
	// Output:
	// /config/users/CN%3Dalice%2CO%3DAcme/clients/<default>
	// {"version":2,"entity_path":"users/CN%3Dalice%2CO%3DAcme/clients/<default>"}
}

func ExampleValidateTopicName() {
	fmt.Println(znodes.ValidateTopicName("orders.v1"))
	fmt.Println(znodes.ValidateTopicName("orders/v1"))
	fmt.Println(znodes.CheckTopicCollision("orders.v1", []string{"orders_v1"}))
	// Output:
	// <nil>
	// Topic name is invalid: 'orders/v1' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'
	// Topic 'orders.v1' collides with existing topics: orders_v1
}

func ExampleNextProducerIDBlock() {
	first, _ := znodes.NextProducerIDBlock(nil, 1) // null data: nothing allocated yet
	data, _ := first.Encode()
	second, _ := znodes.NextProducerIDBlock(data, 2)
	out, _ := second.Encode()
	fmt.Println(string(data))
	fmt.Println(string(out))
	// Output:
	// {"version":1,"broker":1,"block_start":"0","block_end":"999"}
	// {"version":1,"broker":2,"block_start":"1000","block_end":"1999"}
}

func ExampleTopLevelPersistentPaths() {
	for _, p := range znodes.TopLevelPersistentPaths()[:3] {
		fmt.Println(p)
	}
	// Output:
	// /consumers
	// /brokers/ids
	// /brokers/topics
}
