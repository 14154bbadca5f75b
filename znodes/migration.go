package znodes

// MigrationState is the payload of /migration, written only by a KRaft
// controller during a ZooKeeper to KRaft migration:
// {"version":0,"kraft_controller_id":3000,"kraft_controller_epoch":5,
// "kraft_metadata_offset":12345,"kraft_metadata_epoch":5}.
// Its presence tells a ZooKeeper-mode controller that KRaft has taken over.
type MigrationState struct {
	KRaftControllerID    int32
	KRaftControllerEpoch int32
	KRaftMetadataOffset  int64
	KRaftMetadataEpoch   int32
}

// DecodeMigrationState decodes /migration; the version must be 0.
func DecodeMigrationState(data []byte) (MigrationState, error) {
	d := decoder{znode: MigrationPath}
	var m MigrationState
	f, err := d.parse(data)
	if err != nil {
		return m, err
	}
	version, err := d.requiredInt32(f, "", "version")
	if err != nil {
		return m, err
	}
	if version != 0 {
		return m, d.fail(sub("", "version"), "unknown version %d of migration state", version)
	}
	if m.KRaftControllerID, err = d.requiredInt32(f, "", "kraft_controller_id"); err != nil {
		return m, err
	}
	if m.KRaftControllerEpoch, err = d.requiredInt32(f, "", "kraft_controller_epoch"); err != nil {
		return m, err
	}
	raw, err := d.required(f, "", "kraft_metadata_offset")
	if err != nil {
		return m, err
	}
	if m.KRaftMetadataOffset, err = d.int64(sub("", "kraft_metadata_offset"), raw); err != nil {
		return m, err
	}
	m.KRaftMetadataEpoch, err = d.requiredInt32(f, "", "kraft_metadata_epoch")
	return m, err
}

// Encode writes version 0 in the key order shown in the reference.
func (m MigrationState) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 0)
	w.intField("kraft_controller_id", int64(m.KRaftControllerID))
	w.intField("kraft_controller_epoch", int64(m.KRaftControllerEpoch))
	w.intField("kraft_metadata_offset", m.KRaftMetadataOffset)
	w.intField("kraft_metadata_epoch", int64(m.KRaftMetadataEpoch))
	w.endObject()
	return w.bytes(), nil
}
