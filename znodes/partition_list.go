package znodes

import "encoding/json"

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// String formats tp as Kafka does: "<topic>-<partition>".
func (tp TopicPartition) String() string { return tp.Topic + "-" + itoa(tp.Partition) }

// topicPartitions reads `[{"topic":string,"partition":int}, ...]`, the list
// shared by the preferred-election and ISR-change znodes. Extra keys inside
// the elements are ignored, as Kafka's hand-written decoders ignore them.
// Order and duplicates are kept; Kafka reads the list into a set.
func (d decoder) topicPartitions(field string, raw json.RawMessage) ([]TopicPartition, error) {
	elems, err := d.array(field, raw)
	if err != nil || len(elems) == 0 {
		return nil, err
	}
	out := make([]TopicPartition, len(elems))
	for i, e := range elems {
		at := idx(field, i)
		f, err := d.object(at, e)
		if err != nil {
			return nil, err
		}
		if out[i].Topic, err = d.requiredString(f, at, "topic"); err != nil {
			return nil, err
		}
		if out[i].Partition, err = d.requiredInt32(f, at, "partition"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (w *jsonWriter) topicPartitions(tps []TopicPartition) {
	w.beginArray()
	for _, tp := range tps {
		w.beginObject()
		w.strField("topic", tp.Topic)
		w.intField("partition", int64(tp.Partition))
		w.endObject()
	}
	w.endArray()
}

// notificationZnode names a sequential child for error messages, falling
// back to the path template when the caller does not know the child name.
func notificationZnode(parent, prefix, child string) string {
	if child == "" {
		child = prefix + "<seq>"
	}
	return JoinPath(parent, child)
}
