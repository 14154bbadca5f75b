package zkadmin

// MultiOutcome is one multi's answer: its results and error, as Multi
// returns them.
type MultiOutcome struct {
	Res []OpResult
	Err error
}

// Pipeline sends n multis in order through send (which calls MultiAsync
// or FencedMultiAsync for multi i), with at most inFlight unanswered, and
// returns their outcomes in order. Once one fails, the ones not yet sent
// are not: they get ErrNotAttempted. It is for a run of multis where each
// depends on the ones before it (see MultiAsync), so that a failed one
// leaves the rest pointless.
func Pipeline(n, inFlight int, send func(i int) *PendingMulti) []MultiOutcome {
	out := make([]MultiOutcome, n)
	pending := make([]*PendingMulti, n)
	inFlight = max(inFlight, 1)
	failed := false
	next := 0 // the first multi not yet waited for
	wait := func() {
		out[next].Res, out[next].Err = pending[next].Wait()
		failed = failed || out[next].Err != nil
		next++
	}
	for i := range n {
		for i-next >= inFlight {
			wait()
		}
		if failed {
			break
		}
		pending[i] = send(i)
	}
	for next < n && pending[next] != nil {
		wait()
	}
	for ; next < n; next++ {
		out[next].Err = ErrNotAttempted
	}
	return out
}
