package controller

import (
	"context"
	"sync"
)

// propagation tracks which UpdateMetadata the brokers have answered, so
// that an admin answer can wait until every broker knows what it changed.
//
// Kafka's controller is a broker: its answer to CreateTopics waits until
// its own metadata cache has the new partitions, which it learns from the
// same UpdateMetadata the other brokers get, at about the same time.
// kzadmind's view is the controller's own, complete before any broker has
// heard. Without this wait a client that asks another broker right after
// the answer (KafkaJS refreshing its metadata before createPartitions,
// librdkafka's users: reference/users-and-peers.md, pain 7) is told the
// topic does not exist.
//
// Each send that carries UpdateMetadata takes the next sequence number,
// held until every broker it went to has answered or its channel has
// ended (the broker left or the controller resigned). Sequences are
// answered in any order; answeredThrough(s) holds once every sequence up
// to s is.
// A nil *propagation (a controller built bare in a test) tracks nothing.
type propagation struct {
	mu      sync.Mutex
	sent    uint64         // the last sequence taken
	waiting map[uint64]int // sequence → brokers yet to answer
	changed chan struct{}  // closed and replaced when waiting shrinks
}

func newPropagation() *propagation {
	return &propagation{waiting: map[uint64]int{}, changed: make(chan struct{})}
}

// send takes a sequence for UpdateMetadata to n brokers; answered must
// be called once per broker, with its answer or its channel's end (a
// brokerchan callback runs exactly once), or for a request never sent.
func (p *propagation) send(n int) (seq uint64, answered func()) {
	if p == nil {
		return 0, func() {}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent++
	seq = p.sent
	if n > 0 {
		p.waiting[seq] = n
	}
	return seq, func() { p.answer(seq) }
}

func (p *propagation) answer(seq uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.waiting[seq]
	if !ok {
		return
	}
	if n > 1 {
		p.waiting[seq] = n - 1
		return
	}
	delete(p.waiting, seq)
	close(p.changed)
	p.changed = make(chan struct{})
}

// last is the last sequence taken.
func (p *propagation) last() uint64 {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent
}

// answeredThrough reports whether every sequence up to seq is answered,
// and the channel closed at the next answer.
func (p *propagation) answeredThrough(seq uint64) (bool, <-chan struct{}) {
	if p == nil {
		return true, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.waiting {
		if s <= seq {
			return false, p.changed
		}
	}
	return true, p.changed
}

// WaitMetadataAnswered waits until every broker has answered each
// UpdateMetadata sent up to the view's MetadataSent (or its channel has
// ended), or ctx ends.
func (c *Controller) WaitMetadataAnswered(ctx context.Context, sent uint64) error {
	for {
		done, changed := c.propagation.answeredThrough(sent)
		if done {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
