package znodes

// IsrChangeNotification is the payload of
// /isr_change_notification/isr_change_<seq>, written by partition leaders in
// ZK-ISR mode (IBP < 2.7-IV2): {"version":1,"partitions":[{...}]}.
type IsrChangeNotification struct {
	// Version is what was read; Encode always writes 1.
	Version    int32
	Partitions []TopicPartition
}

// DecodeIsrChangeNotification decodes one ISR change notification. child is
// the znode's name (e.g. "isr_change_0000000012") and is only used in error
// messages; pass "" when unknown.
func DecodeIsrChangeNotification(child string, data []byte) (IsrChangeNotification, error) {
	d := decoder{znode: notificationZnode(IsrChangeNotificationPath, IsrChangePrefix, child)}
	var n IsrChangeNotification
	f, err := d.parse(data)
	if err != nil {
		return n, err
	}
	if n.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return n, err
	}
	raw, err := d.required(f, "", "partitions")
	if err != nil {
		return n, err
	}
	n.Partitions, err = d.topicPartitions(sub("", "partitions"), raw)
	return n, err
}

// Encode writes Kafka's form with version 1.
func (n IsrChangeNotification) Encode() ([]byte, error) {
	return encodeVersionedPartitions(n.Partitions), nil
}

// LogDirFailureEvent is the only log dir event type Kafka defines.
const LogDirFailureEvent int32 = 1

// LogDirEventNotification is the payload of
// /log_dir_event_notification/log_dir_event_<seq>, written by a broker whose
// log directory failed: {"version":1,"broker":3,"event":1}.
type LogDirEventNotification struct {
	// Version is what was read; Encode always writes 1.
	Version  int32
	BrokerID int32
	// Event is LogDirFailureEvent; Kafka does not read it. It defaults to
	// LogDirFailureEvent when absent.
	Event int32
}

// DecodeLogDirEventNotification decodes one log dir event. child is the
// znode's name, used only in error messages ("" when unknown).
func DecodeLogDirEventNotification(child string, data []byte) (LogDirEventNotification, error) {
	d := decoder{znode: notificationZnode(LogDirEventNotificationPath, LogDirEventPrefix, child)}
	var n LogDirEventNotification
	f, err := d.parse(data)
	if err != nil {
		return n, err
	}
	if n.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return n, err
	}
	if n.BrokerID, err = d.requiredInt32(f, "", "broker"); err != nil {
		return n, err
	}
	n.Event, err = d.optionalInt32(f, "", "event", LogDirFailureEvent)
	return n, err
}

// Encode writes {"version":1,"broker":<id>,"event":<event>}.
func (n LogDirEventNotification) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 1)
	w.intField("broker", int64(n.BrokerID))
	w.intField("event", int64(n.Event))
	w.endObject()
	return w.bytes(), nil
}
