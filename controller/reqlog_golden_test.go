package controller

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// requestLog records the control requests (LeaderAndIsr, UpdateMetadata,
// StopReplica) the controller writes to each broker, by wrapping the
// connections it dials (Config.BrokerDial). It sees the bytes on the wire,
// so what it records is what the broker was sent, decoded again with kmsg.
// It also counts requests written and not yet answered, which the golden
// scenarios' stabilize waits to drain.
type requestLog struct {
	// brokerOf maps a dialled address to a broker id (-1: unknown).
	brokerOf func(addr string) int32

	mu       sync.Mutex
	lines    map[int32]map[string]bool // since the last show, per broker
	written  int64                     // control requests ever written
	inFlight int64
	errs     []error // frames that did not decode
}

func newRequestLog(brokerOf func(string) int32) *requestLog {
	return &requestLog{brokerOf: brokerOf, lines: map[int32]map[string]bool{}}
}

// dial is a brokerchan.DialFunc.
func (l *requestLog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Conn: nc, log: l, broker: l.brokerOf(addr)}, nil
}

// counters returns the requests written so far and those unanswered.
func (l *requestLog) counters() (written, inFlight int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written, l.inFlight
}

// take returns each broker's summary lines since the last take, sorted
// and without duplicates, and forgets them.
func (l *requestLog) take() map[int32][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[int32][]string, len(l.lines))
	for id, m := range l.lines {
		out[id] = slices.Sorted(maps.Keys(m))
	}
	clear(l.lines)
	return out
}

func (l *requestLog) decodeErrors() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errs)
}

// requestFrame decodes one request frame (without its size prefix) and
// reports whether it was a control request.
func (l *requestLog) requestFrame(broker int32, frame []byte) bool {
	lines, err := summariseRequest(frame)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("broker %d: %w", broker, err))
		return false
	}
	if lines == nil {
		return false // not a control request
	}
	l.written++
	l.inFlight++
	m := l.lines[broker]
	if m == nil {
		m = map[string]bool{}
		l.lines[broker] = m
	}
	for _, s := range lines {
		m[s] = true
	}
	return true
}

// answered counts n control requests as no longer in flight (answered,
// or lost with their connection).
func (l *requestLog) answered(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight -= int64(n)
}

// recordingConn splits the byte streams into size-prefixed frames. One
// goroutine (the broker channel's sender) writes and reads it.
type recordingConn struct {
	net.Conn
	log    *requestLog
	broker int32
	wbuf   []byte
	rbuf   []byte
	// control says, per request written and not yet answered, in order,
	// whether it was a control request: only those count in the log's
	// in-flight number.
	control []bool
	closed  sync.Once
}

// Write records each complete request frame before it goes out, so the
// in-flight count never misses a request the broker already has.
func (c *recordingConn) Write(p []byte) (int, error) {
	c.wbuf = append(c.wbuf, p...)
	for {
		frame, rest, ok := cutFrame(c.wbuf)
		if !ok {
			break
		}
		c.control = append(c.control, c.log.requestFrame(c.broker, frame))
		c.wbuf = rest
	}
	return c.Conn.Write(p)
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.rbuf = append(c.rbuf, p[:n]...)
	for {
		_, rest, ok := cutFrame(c.rbuf)
		if !ok {
			break
		}
		if len(c.control) > 0 {
			if c.control[0] {
				c.log.answered(1)
			}
			c.control = c.control[1:]
		}
		c.rbuf = rest
	}
	return n, err
}

// Close forgets the requests that will never be answered on this
// connection; the channel sends them again on a new one.
func (c *recordingConn) Close() error {
	c.closed.Do(func() {
		n := 0
		for _, ctl := range c.control {
			if ctl {
				n++
			}
		}
		c.log.answered(n)
	})
	return c.Conn.Close()
}

func cutFrame(b []byte) (frame, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, b, false
	}
	size := int(binary.BigEndian.Uint32(b))
	if len(b) < 4+size {
		return nil, b, false
	}
	return b[4 : 4+size], b[4+size:], true
}

// summariseRequest decodes a request frame and returns one line per thing
// it tells the broker; nil for keys other than the control requests.
func summariseRequest(frame []byte) ([]string, error) {
	if len(frame) < 10 {
		return nil, fmt.Errorf("request frame of %d bytes", len(frame))
	}
	key := int16(binary.BigEndian.Uint16(frame))
	version := int16(binary.BigEndian.Uint16(frame[2:]))
	if key != kmsg.LeaderAndISR.Int16() && key != kmsg.UpdateMetadata.Int16() && key != kmsg.StopReplica.Int16() {
		return nil, nil
	}
	req := kmsg.RequestForKey(key)
	req.SetVersion(version)
	body, err := skipRequestHeader(frame[8:], req.IsFlexible())
	if err != nil {
		return nil, fmt.Errorf("key %d v%d header: %w", key, version, err)
	}
	if err := req.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("decode key %d v%d: %w", key, version, err)
	}
	switch r := req.(type) {
	case *kmsg.LeaderAndISRRequest:
		return summariseLeaderAndIsr(r), nil
	case *kmsg.UpdateMetadataRequest:
		return summariseUpdateMetadata(r), nil
	case *kmsg.StopReplicaRequest:
		return summariseStopReplica(r), nil
	}
	return nil, nil
}

// skipRequestHeader skips the client id (a nullable int16-length string)
// and, for flexible versions, the header's tagged fields.
func skipRequestHeader(b []byte, flexible bool) ([]byte, error) {
	if len(b) < 2 {
		return nil, fmt.Errorf("short header")
	}
	n := int(int16(binary.BigEndian.Uint16(b)))
	b = b[2:]
	if n > 0 {
		if len(b) < n {
			return nil, fmt.Errorf("client id of %d bytes, %d left", n, len(b))
		}
		b = b[n:]
	}
	if !flexible {
		return b, nil
	}
	return skipTags(b)
}

// skipTags skips a tagged-field section (unsigned varint count, then id,
// size and data for each).
func skipTags(b []byte) ([]byte, error) {
	count, n := binary.Uvarint(b)
	if n <= 0 {
		return nil, fmt.Errorf("bad tag count")
	}
	b = b[n:]
	for range count {
		if _, n = binary.Uvarint(b); n <= 0 {
			return nil, fmt.Errorf("bad tag id")
		}
		b = b[n:]
		size, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < size {
			return nil, fmt.Errorf("bad tag size")
		}
		b = b[n+int(size):]
	}
	return b, nil
}

func idList(v []int32) string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(s, " ") + "]"
}

func summariseLeaderAndIsr(r *kmsg.LeaderAndISRRequest) []string {
	parts := r.PartitionStates
	for _, ts := range r.TopicStates {
		for _, p := range ts.PartitionStates {
			p.Topic = ts.Topic
			parts = append(parts, p)
		}
	}
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		s := fmt.Sprintf("LeaderAndIsr %s-%d leader=%d leader_epoch=%d isr=%s zk_version=%d replicas=%s",
			p.Topic, p.Partition, p.Leader, p.LeaderEpoch, idList(p.ISR), p.ZKVersion, idList(p.Replicas))
		if len(p.AddingReplicas) > 0 {
			s += " adding=" + idList(p.AddingReplicas)
		}
		if len(p.RemovingReplicas) > 0 {
			s += " removing=" + idList(p.RemovingReplicas)
		}
		if p.IsNew {
			s += " new"
		}
		if p.LeaderRecoveryState != 0 {
			s += " recovering"
		}
		out = append(out, s)
	}
	return out
}

func summariseUpdateMetadata(r *kmsg.UpdateMetadataRequest) []string {
	live := make([]int32, 0, len(r.LiveBrokers))
	for _, b := range r.LiveBrokers {
		live = append(live, b.ID)
	}
	slices.Sort(live)
	out := []string{"UpdateMetadata live=" + idList(live)}
	parts := r.PartitionStates
	for _, ts := range r.TopicStates {
		for _, p := range ts.PartitionStates {
			p.Topic = ts.Topic
			parts = append(parts, p)
		}
	}
	for _, p := range parts {
		s := fmt.Sprintf("UpdateMetadata %s-%d leader=%d leader_epoch=%d isr=%s zk_version=%d",
			p.Topic, p.Partition, p.Leader, p.LeaderEpoch, idList(p.ISR), p.ZKVersion)
		if len(p.OfflineReplicas) > 0 {
			s += " offline=" + idList(p.OfflineReplicas)
		}
		out = append(out, s)
	}
	return out
}

func summariseStopReplica(r *kmsg.StopReplicaRequest) []string {
	var out []string
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			out = append(out, fmt.Sprintf("StopReplica %s-%d delete=%t", t.Topic, p, r.DeletePartitions))
		}
		for _, p := range t.PartitionStates {
			out = append(out, fmt.Sprintf("StopReplica %s-%d delete=%t", t.Topic, p.Partition, p.Delete))
		}
	}
	if out == nil {
		out = []string{"StopReplica (no partitions)"}
	}
	return out
}
