package zkadmin

import (
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// Stat is a znode's metadata, our copy of ZooKeeper's Stat so callers never
// see go-zookeeper's types. Kafka reads Version as the "zkVersion" (the
// controller epoch zkVersion, the partition epoch, the feature epoch), Czxid
// as a broker's epoch and EphemeralOwner to recognise its own session.
type Stat struct {
	Czxid          int64 // zxid of the create
	Mzxid          int64 // zxid of the last data change
	Pzxid          int64 // zxid of the last change to the children
	Ctime          int64 // create time, ms since the epoch
	Mtime          int64 // last data change time, ms since the epoch
	Version        int32 // number of data changes (the "zkVersion")
	Cversion       int32 // number of changes to the children
	Aversion       int32 // number of ACL changes
	EphemeralOwner int64 // session id of the owner, 0 if persistent
	DataLength     int32
	NumChildren    int32
}

// Created returns Ctime as a time.Time.
func (s Stat) Created() time.Time { return time.UnixMilli(s.Ctime) }

// Modified returns Mtime as a time.Time.
func (s Stat) Modified() time.Time { return time.UnixMilli(s.Mtime) }

func statFrom(s *zk.Stat) Stat {
	if s == nil {
		return Stat{}
	}
	return Stat{
		Czxid: s.Czxid, Mzxid: s.Mzxid, Pzxid: s.Pzxid,
		Ctime: s.Ctime, Mtime: s.Mtime,
		Version: s.Version, Cversion: s.Cversion, Aversion: s.Aversion,
		EphemeralOwner: s.EphemeralOwner,
		DataLength:     s.DataLength, NumChildren: s.NumChildren,
	}
}

// AnyVersion as an expected version matches every version (ZooKeeper's -1).
const AnyVersion int32 = -1

// CreateMode is how a znode is created. Kafka uses Persistent, Ephemeral and
// PersistentSequential.
type CreateMode int32

// The values are ZooKeeper's own create flags.
const (
	Persistent           CreateMode = zk.FlagPersistent
	Ephemeral            CreateMode = zk.FlagEphemeral
	PersistentSequential CreateMode = zk.FlagSequence
	EphemeralSequential  CreateMode = zk.FlagEphemeralSequential
)

func (m CreateMode) String() string {
	switch m {
	case Persistent:
		return "persistent"
	case Ephemeral:
		return "ephemeral"
	case PersistentSequential:
		return "persistent-sequential"
	case EphemeralSequential:
		return "ephemeral-sequential"
	}
	return fmt.Sprintf("CreateMode(%d)", int32(m))
}

func (m CreateMode) sequential() bool { return m == PersistentSequential || m == EphemeralSequential }

func (m CreateMode) valid() bool { return m >= Persistent && m <= EphemeralSequential }

// Permission bits of an ACL entry.
const (
	PermRead   int32 = zk.PermRead
	PermWrite  int32 = zk.PermWrite
	PermCreate int32 = zk.PermCreate
	PermDelete int32 = zk.PermDelete
	PermAdmin  int32 = zk.PermAdmin
	PermAll    int32 = zk.PermAll
)

// ACL is one ZooKeeper ACL entry: e.g. {PermAll, "world", "anyone"}.
type ACL struct {
	Perms  int32
	Scheme string
	ID     string
}

// OpenACL is world:anyone:cdrwa, ZooKeeper's OPEN_ACL_UNSAFE and what Kafka
// uses when zookeeper.set.acl is false.
func OpenACL() []ACL { return []ACL{{Perms: PermAll, Scheme: "world", ID: "anyone"}} }

// CreatorAllACL gives every permission to the identities the session is
// authenticated as (ZooKeeper's CREATOR_ALL_ACL).
func CreatorAllACL() []ACL { return []ACL{{Perms: PermAll, Scheme: "auth", ID: ""}} }

// WorldReadACL lets everyone read (ZooKeeper's READ_ACL_UNSAFE).
func WorldReadACL() []ACL { return []ACL{{Perms: PermRead, Scheme: "world", ID: "anyone"}} }

func zkACL(acl []ACL) []zk.ACL {
	out := make([]zk.ACL, len(acl))
	for i, a := range acl {
		out[i] = zk.ACL{Perms: a.Perms, Scheme: a.Scheme, ID: a.ID}
	}
	return out
}
