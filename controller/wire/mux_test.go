package wire

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func nopHandler() Handler {
	return HandlerFunc(func(context.Context, *Request) (kmsg.Response, error) { return nil, nil })
}

func rawDecoder() Decoder {
	return Decoder{Flexible: true, Decode: func([]byte) (kmsg.Request, error) { return nil, errors.New("unused") }}
}

func TestMuxRegisterValidation(t *testing.T) {
	tests := []struct {
		name    string
		route   Route
		wantErr string
	}{
		{name: "metadata", route: Route{VersionRange: VersionRange{3, 0, 12}, Handler: nopHandler()}},
		{name: "kmsg max", route: Route{VersionRange: VersionRange{3, 0, 13}, Handler: nopHandler()}},
		{name: "api versions is built in", route: Route{VersionRange: VersionRange{18, 0, 4}, Handler: nopHandler()}, wantErr: "answered by the server"},
		{name: "negative key", route: Route{VersionRange: VersionRange{-1, 0, 0}, Handler: nopHandler()}, wantErr: "negative key"},
		{name: "empty range", route: Route{VersionRange: VersionRange{3, 5, 4}, Handler: nopHandler()}, wantErr: "bad version range"},
		{name: "negative min", route: Route{VersionRange: VersionRange{3, -1, 4}, Handler: nopHandler()}, wantErr: "bad version range"},
		{name: "nil handler", route: Route{VersionRange: VersionRange{3, 0, 1}}, wantErr: "nil handler"},
		{name: "beyond kmsg without decoder", route: Route{VersionRange: VersionRange{43, 0, 3}, Handler: nopHandler()}, wantErr: "kmsg decodes up to v2 and v3 has no decoder"},
		{
			name:  "beyond kmsg with decoder",
			route: Route{VersionRange: VersionRange{43, 0, 3}, Handler: nopHandler(), Decoders: map[int16]Decoder{3: rawDecoder()}},
		},
		{
			name:    "decoder outside the range",
			route:   Route{VersionRange: VersionRange{43, 0, 2}, Handler: nopHandler(), Decoders: map[int16]Decoder{3: rawDecoder()}},
			wantErr: "decoder for v3 outside the range",
		},
		{
			name:    "decoder without func",
			route:   Route{VersionRange: VersionRange{43, 0, 3}, Handler: nopHandler(), Decoders: map[int16]Decoder{3: {Flexible: true}}},
			wantErr: "no Decode func",
		},
		{name: "key kmsg lacks", route: Route{VersionRange: VersionRange{9999, 0, 0}, Handler: nopHandler()}, wantErr: "kmsg does not know the key"},
		{
			name:  "key kmsg lacks with decoder",
			route: Route{VersionRange: VersionRange{9999, 0, 0}, Handler: nopHandler(), Decoders: map[int16]Decoder{0: rawDecoder()}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewMux().Register(tt.route)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Register: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Register err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestMuxRegisterDuplicate(t *testing.T) {
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{19, 0, 7}, Handler: nopHandler()})
	err := m.Register(Route{VersionRange: VersionRange{19, 0, 1}, Handler: nopHandler()})
	if err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Fatalf("second Register err = %v, want already registered", err)
	}
	if got := m.APIs(); !slices.Contains(got, VersionRange{19, 0, 7}) {
		t.Fatalf("APIs %v lost the first registration", got)
	}
}

func TestMuxHandleFuncNil(t *testing.T) {
	if err := NewMux().HandleFunc(VersionRange{3, 0, 1}, nil); err == nil {
		t.Fatal("HandleFunc(nil) succeeded")
	}
}

func TestMuxAPIsSortedWithApiVersions(t *testing.T) {
	m := NewMux()
	if got, want := m.APIs(), []VersionRange{{18, 0, 4}}; !slices.Equal(got, want) {
		t.Fatalf("empty mux APIs %v, want %v", got, want)
	}
	for _, vr := range []VersionRange{{60, 0, 1}, {3, 0, 12}, {19, 0, 7}} {
		if err := m.HandleFunc(vr, metadataHandler(nil)); err != nil {
			t.Fatal(err)
		}
	}
	want := []VersionRange{{3, 0, 12}, {18, 0, 4}, {19, 0, 7}, {60, 0, 1}}
	if got := m.APIs(); !slices.Equal(got, want) {
		t.Fatalf("APIs %v, want %v", got, want)
	}
}

func TestMuxRouteDecodersCopied(t *testing.T) {
	m := NewMux()
	decs := map[int16]Decoder{3: rawDecoder()}
	mustRegister(t, m, Route{VersionRange: VersionRange{43, 0, 3}, Handler: nopHandler(), Decoders: decs})
	delete(decs, 3)
	r, _ := m.lookup(43)
	if _, ok := r.Decoders[3]; !ok {
		t.Fatal("the caller's map change reached the registered route")
	}
}

func TestVersionRangeContains(t *testing.T) {
	vr := VersionRange{Key: 3, Min: 1, Max: 12}
	for v, want := range map[int16]bool{-1: false, 0: false, 1: true, 12: true, 13: false} {
		if vr.Contains(v) != want {
			t.Errorf("Contains(%d) = %v", v, !want)
		}
	}
}
