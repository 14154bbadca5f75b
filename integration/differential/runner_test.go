package differential

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/kzadmin/kzadmin/internal/kafkaconn"
)

const (
	// requestTimeout bounds one round trip. The longest wait a case asks
	// for is a CreateTopics or DeleteTopics timeout of 30 s.
	requestTimeout = 45 * time.Second
	// untilTimeout bounds how long a step with a condition is re-sent;
	// when it runs out, the last answer is compared anyway.
	untilTimeout = 20 * time.Second
	untilEvery   = 100 * time.Millisecond
)

// testCase is a named, ordered list of requests; later steps may depend
// on what earlier ones did (create, then describe).
type testCase struct {
	name  string
	steps []step
}

// step is one request at a pinned version.
type step struct {
	name string
	// req builds the request for a run: most ignore env, some name the
	// run's controller or a topic id learnt from an earlier answer.
	req func(e *env) kmsg.Request
	// until, when set, re-sends the request until it accepts the answer
	// (a config change a broker applies asynchronously, an auto-created
	// topic getting its leader), for at most untilTimeout.
	until func(kmsg.Response) error
	// placed names topics whose replicas Kafka placed from a random
	// start; a Metadata answer's placement of them is masked.
	placed []string
	// namesOnly compares a Metadata answer's topics by name only (the
	// all-topics lists).
	namesOnly bool
	// timeout, when set, bounds the wait for the answer below
	// requestTimeout: for a request one side is known never to answer.
	timeout time.Duration
	// cleanup, when set, says why the answer is not compared: the step
	// only undoes what an allowed difference left behind, so that later
	// cases start from the same state in both runs.
	cleanup string
	// client, when set, sends the step on a connection of its own with
	// this client id (quotas are kept per client id); "" is the harness's
	// own connection, client id kzadmin-differential.
	client string
}

// env is what a run's steps know about the run.
type env struct {
	run Run
	// ids are the topic ids this run's answers gave, by topic name.
	ids map[string][16]byte
	// sent counts the requests built per step key, for steps whose
	// request changes from one send to the next.
	sent map[string]int
}

// next counts one more request built for key in this run and returns the
// count (1 for the first).
func (e *env) next(key string) int {
	e.sent[key]++
	return e.sent[key]
}

// outcome is a step's normalized answer, or why there was none.
type outcome struct {
	resp kmsg.Response
	err  error
}

// target sends requests to one node over a raw connection, so that each
// request goes at exactly the version its case pins.
type target struct {
	addr   string
	client string // the client id; "" is kzadmin-differential
	conn   *kafkaconn.Conn
}

// roundTrip sends req, dialling first if needed. After an error the
// connection is dropped (its state is unknown) and the next request
// dials again.
func (tg *target) roundTrip(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	if tg.conn == nil {
		d := net.Dialer{Timeout: 5 * time.Second}
		nc, err := d.DialContext(ctx, "tcp", tg.addr)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", tg.addr, err)
		}
		client := tg.client
		if client == "" {
			client = "kzadmin-differential"
		}
		tg.conn = kafkaconn.New(nc, tg.addr, kafkaconn.Config{ClientID: client, Timeout: requestTimeout})
	}
	resp, err := tg.conn.RoundTrip(ctx, req)
	if err != nil {
		tg.close()
	}
	return resp, err
}

func (tg *target) close() {
	if tg.conn != nil {
		_ = tg.conn.Close()
		tg.conn = nil
	}
}

// runCases sends every case's steps, in order, to tg and returns the
// normalized outcomes by "case/step". logf reports steps whose condition
// never held and slow steps.
func runCases(ctx context.Context, tg *target, run Run, cases []testCase, logf func(string, ...any)) map[string]outcome {
	targets := map[string]*target{"": tg}
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	e := &env{run: run, ids: map[string][16]byte{}, sent: map[string]int{}}
	out := make(map[string]outcome)
	for _, c := range cases {
		for _, s := range c.steps {
			key := c.name + "/" + s.name
			began := time.Now()
			stg := targets[s.client]
			if stg == nil {
				stg = &target{addr: tg.addr, client: s.client}
				targets[s.client] = stg
			}
			o, unmet := runStep(ctx, stg, e, s)
			if unmet != nil {
				logf("%s: condition never held, comparing the last answer: %v", key, unmet)
			}
			if took := time.Since(began); took > time.Second {
				logf("%s took %s", key, took.Round(time.Millisecond))
			}
			out[key] = o
		}
	}
	return out
}

// runStep sends one step (again and again while its condition rejects
// the answer), learns topic ids from the answer and normalizes it. unmet
// says why the condition still rejected the last answer.
func runStep(ctx context.Context, tg *target, e *env, s step) (_ outcome, unmet error) {
	var resp kmsg.Response
	send := func() error {
		rctx := ctx
		if s.timeout > 0 {
			var cancel context.CancelFunc
			rctx, cancel = context.WithTimeout(ctx, s.timeout)
			defer cancel()
		}
		var err error
		if resp, err = tg.roundTrip(rctx, s.req(e)); err != nil {
			return err
		}
		if s.until != nil {
			return s.until(resp)
		}
		return nil
	}
	var err error
	if s.until == nil {
		err = send()
	} else if err = waitfor.Until(ctx, untilTimeout, untilEvery, send); err != nil && resp != nil {
		unmet, err = err, nil
	}
	if err != nil {
		return outcome{err: err}, nil
	}
	e.learn(resp)
	if md, ok := resp.(*kmsg.MetadataResponse); ok {
		MaskPlacement(md, s.placed)
		if s.namesOnly {
			NamesOnly(md)
		}
	}
	Normalize(resp, e.run)
	return outcome{resp: resp}, unmet
}

// learn records the topic ids an answer gives, for later steps that
// address topics by id.
func (e *env) learn(resp kmsg.Response) {
	switch r := resp.(type) {
	case *kmsg.CreateTopicsResponse:
		for _, t := range r.Topics {
			if t.TopicID != [16]byte{} {
				e.ids[t.Topic] = t.TopicID
			}
		}
	case *kmsg.MetadataResponse:
		for _, t := range r.Topics {
			if t.Topic != nil && t.TopicID != [16]byte{} {
				e.ids[*t.Topic] = t.TopicID
			}
		}
	}
}
