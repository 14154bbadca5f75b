package controller

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPropagationAnsweredThrough: a sequence counts as answered once every
// broker it went to has answered, and answeredThrough(s) needs every
// sequence up to s, whatever order the answers come in.
func TestPropagationAnsweredThrough(t *testing.T) {
	p := newPropagation()
	s1, answer1 := p.send(2)
	s2, answer2 := p.send(1)
	s3, _ := p.send(0) // no broker: nothing to wait for
	if s1 != 1 || s2 != 2 || s3 != 3 || p.last() != 3 {
		t.Fatalf("sequences %d %d %d, last %d", s1, s2, s3, p.last())
	}
	through := func(s uint64) bool { ok, _ := p.answeredThrough(s); return ok }
	if through(1) || through(2) {
		t.Fatal("answered before any broker did")
	}
	answer2()
	if through(2) || !through(0) {
		t.Fatal("2 answered counts through 2 while 1 waits")
	}
	answer1()
	if through(1) {
		t.Fatal("1 answered after one of its two brokers")
	}
	_, changed := p.answeredThrough(1)
	answer1()
	select {
	case <-changed:
	default:
		t.Fatal("the answer completing a sequence did not signal")
	}
	answer1() // a stray extra answer changes nothing
	if !through(1) || !through(3) {
		t.Fatal("not answered through 3 after every broker answered")
	}
}

// TestWaitMetadataAnswered: the wait ends with the last answer, or with
// its context.
func TestWaitMetadataAnswered(t *testing.T) {
	c := &Controller{propagation: newPropagation()}
	seq, answer := c.propagation.send(1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.WaitMetadataAnswered(ctx, seq); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait with no answer: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.WaitMetadataAnswered(context.Background(), seq) }()
	answer()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end with the answer")
	}
}
