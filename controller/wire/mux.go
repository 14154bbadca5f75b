package wire

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// VersionRange is an API key and the inclusive range of versions served for
// it, as one ApiVersions entry advertises it.
type VersionRange struct {
	Key int16
	Min int16
	Max int16
}

// Contains reports whether version lies in [Min, Max].
func (r VersionRange) Contains(version int16) bool {
	return version >= r.Min && version <= r.Max
}

// Decoder decodes one version of one key that kmsg cannot: a version above
// kmsg's MaxVersion for the key (ElectLeaders v3), or a key kmsg does not
// know at all.
type Decoder struct {
	// Flexible reports whether the version is flexible (KIP-482): its
	// request header is v2 and its response header v1. The server needs
	// this before the body can be decoded.
	Flexible bool
	// Decode parses the request body (the bytes after the header). The
	// value it returns is what Request.Body holds; the handler's response
	// for it must encode the same version with AppendTo.
	Decode func(body []byte) (kmsg.Request, error)
}

// Route is what one handler registers for one API key.
type Route struct {
	VersionRange
	Handler Handler
	// Decoders maps versions kmsg cannot decode to their decoders. Every
	// version in the range that is above kmsg's MaxVersion for the key
	// needs one; a decoder for a version kmsg knows takes precedence.
	Decoders map[int16]Decoder
}

// apiVersionsKey is ApiVersions' key; the server answers it itself.
const apiVersionsKey int16 = 18

// apiVersionsMax is the highest ApiVersions version served, as Kafka 3.9.
const apiVersionsMax int16 = 4

// Mux maps API keys to handlers. It is the registry behind ApiVersions:
// exactly the registered keys and ranges are advertised, plus ApiVersions
// itself (v0-4), which the server answers. The zero value is not usable;
// call NewMux. A Mux is safe for concurrent use, so handlers may register
// while the server runs.
type Mux struct {
	mu     sync.RWMutex
	routes map[int16]Route
}

// NewMux returns an empty Mux: a server using it answers ApiVersions only.
func NewMux() *Mux {
	return &Mux{routes: make(map[int16]Route)}
}

// Register adds a route. It fails if the key is ApiVersions (built in) or
// already registered, the range is empty or negative, the handler is nil,
// or some version in the range can be decoded neither by kmsg nor by one
// of the route's Decoders.
func (m *Mux) Register(r Route) error {
	if err := validateRoute(r); err != nil {
		return fmt.Errorf("register key %d (%s) v%d-%d: %w", r.Key, kmsg.NameForKey(r.Key), r.Min, r.Max, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.routes[r.Key]; dup {
		return fmt.Errorf("register key %d (%s): already registered", r.Key, kmsg.NameForKey(r.Key))
	}
	r.Decoders = maps.Clone(r.Decoders) // the caller's map stays theirs
	m.routes[r.Key] = r
	return nil
}

// HandleFunc registers f for the versions in vr. It is Register for routes
// that kmsg decodes entirely.
func (m *Mux) HandleFunc(vr VersionRange, f HandlerFunc) error {
	var h Handler
	if f != nil { // a nil func in a non-nil interface would pass the nil check
		h = f
	}
	return m.Register(Route{VersionRange: vr, Handler: h})
}

// APIs returns what ApiVersions advertises: every registered range plus
// ApiVersions itself, sorted by key.
func (m *Mux) APIs() []VersionRange {
	m.mu.RLock()
	out := make([]VersionRange, 0, len(m.routes)+1)
	for _, r := range m.routes {
		out = append(out, r.VersionRange)
	}
	m.mu.RUnlock()
	out = append(out, VersionRange{Key: apiVersionsKey, Min: 0, Max: apiVersionsMax})
	slices.SortFunc(out, func(a, b VersionRange) int { return int(a.Key) - int(b.Key) })
	return out
}

// lookup returns the route for key, if one is registered.
func (m *Mux) lookup(key int16) (Route, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.routes[key]
	return r, ok
}

func validateRoute(r Route) error {
	switch {
	case r.Key == apiVersionsKey:
		return fmt.Errorf("ApiVersions is answered by the server")
	case r.Key < 0:
		return fmt.Errorf("negative key")
	case r.Min < 0 || r.Min > r.Max:
		return fmt.Errorf("bad version range")
	case r.Handler == nil:
		return fmt.Errorf("nil handler")
	}
	for v, d := range r.Decoders {
		if !r.Contains(v) {
			return fmt.Errorf("decoder for v%d outside the range", v)
		}
		if d.Decode == nil {
			return fmt.Errorf("decoder for v%d has no Decode func", v)
		}
	}
	kreq := kmsg.RequestForKey(r.Key)
	for v := r.Min; v <= r.Max; v++ {
		if _, ok := r.Decoders[v]; ok {
			continue
		}
		if kreq == nil {
			return fmt.Errorf("kmsg does not know the key and v%d has no decoder", v)
		}
		if v > kreq.MaxVersion() {
			return fmt.Errorf("kmsg decodes up to v%d and v%d has no decoder", kreq.MaxVersion(), v)
		}
	}
	return nil
}
