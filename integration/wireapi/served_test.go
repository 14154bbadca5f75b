package wireapi

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"sync"

	"github.com/rs/zerolog"
)

// served counts the requests kzadmind's listener answered, by API name,
// from its debug log ("request served"). It tells which node a client
// routed a request to: what kzadmind did not serve, a broker did. Lines at
// warn and above go on to out.
type served struct {
	out io.Writer

	mu     sync.Mutex
	counts map[string]int
}

func newServed(out io.Writer) *served {
	return &served{out: out, counts: map[string]int{}}
}

// logLine is the part of a zerolog JSON line served reads.
type logLine struct {
	Level     string `json:"level"`
	Component string `json:"component"`
	API       string `json:"api"`
	Message   string `json:"message"`
}

// Write implements io.Writer for zerolog: one JSON object per call.
func (s *served) Write(p []byte) (int, error) {
	var l logLine
	if err := json.Unmarshal(bytes.TrimSpace(p), &l); err != nil {
		return s.out.Write(p)
	}
	if l.Message == "request served" && l.API != "" {
		s.mu.Lock()
		s.counts[l.API]++
		s.mu.Unlock()
	}
	if lvl, err := zerolog.ParseLevel(l.Level); err == nil && lvl >= zerolog.WarnLevel {
		return s.out.Write(p)
	}
	return len(p), nil
}

// snapshot copies the counts so far.
func (s *served) snapshot() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.counts)
}

// since returns the counts added after before was taken (APIs with none
// are left out).
func (s *served) since(before map[string]int) map[string]int {
	now := s.snapshot()
	out := map[string]int{}
	for api, n := range now {
		if d := n - before[api]; d > 0 {
			out[api] = d
		}
	}
	return out
}
