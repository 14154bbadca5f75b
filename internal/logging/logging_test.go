package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func fixedClock() time.Time {
	return time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("CEST", 2*3600))
}

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    zerolog.Level
		wantErr bool
	}{
		{"trace", zerolog.TraceLevel, false},
		{"debug", zerolog.DebugLevel, false},
		{"info", zerolog.InfoLevel, false},
		{"INFO", zerolog.InfoLevel, false},
		{" Warn ", zerolog.WarnLevel, false},
		{"error", zerolog.ErrorLevel, false},
		{"fatal", zerolog.FatalLevel, false},
		{"panic", zerolog.PanicLevel, false},
		{"disabled", zerolog.Disabled, false},
		{"", zerolog.NoLevel, true},
		{"1", zerolog.NoLevel, true},
		{"warning", zerolog.NoLevel, true},
		{"verbose", zerolog.NoLevel, true},
	}
	for _, tt := range tests {
		got, err := ParseLevel(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseLevel(%q) err = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseLevel(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr bool
	}{
		{"", FormatJSON, false},
		{"json", FormatJSON, false},
		{"JSON", FormatJSON, false},
		{"console", FormatConsole, false},
		{"text", "", true},
		{"logfmt", "", true},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, wantErr %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestNewErrorsNameAllowedValues(t *testing.T) {
	tests := []struct {
		format, level, want string
	}{
		{"json", "loud", `log level "loud": must be one of trace, debug, info, warn, error, fatal, panic, disabled`},
		{"xml", "info", `log format "xml": must be one of json, console`},
	}
	for _, tt := range tests {
		_, err := New(&bytes.Buffer{}, tt.format, tt.level)
		if err == nil || err.Error() != tt.want {
			t.Errorf("New(%q, %q) err = %v, want %q", tt.format, tt.level, err, tt.want)
		}
	}
	if _, err := New(nil, "json", "info"); err == nil {
		t.Error("New(nil writer) succeeded, want error")
	}
}

func TestJSONOutput(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(&buf, "json", "info", fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	log.Info().Str("path", "/controller").Int("epoch", 7).Msg("elected")
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("output is not one JSON object: %v: %q", err, buf.String())
	}
	want := map[string]any{
		"level":   "info",
		"message": "elected",
		"path":    "/controller",
		"epoch":   float64(7),
		"time":    "2024-05-06T05:08:09.123Z",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field %q = %v, want %v (line %q)", k, got[k], v, buf.String())
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d fields, want %d: %q", len(got), len(want), buf.String())
	}
}

func TestTimestampIsRFC3339Millis(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, "json", "info")
	if err != nil {
		t.Fatal(err)
	}
	log.Info().Msg("x")
	var got struct{ Time string }
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	if !re.MatchString(got.Time) {
		t.Errorf("time %q is not RFC3339 with millis in UTC", got.Time)
	}
	if _, err := time.Parse(time.RFC3339Nano, got.Time); err != nil {
		t.Errorf("time %q does not parse as RFC3339: %v", got.Time, err)
	}
}

func TestLevelFilters(t *testing.T) {
	tests := []struct {
		level     string
		wantLines int // of debug, info, warn, error
	}{
		{"trace", 4},
		{"debug", 4},
		{"info", 3},
		{"warn", 2},
		{"error", 1},
		{"disabled", 0},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		log, err := newLogger(&buf, "json", tt.level, fixedClock)
		if err != nil {
			t.Fatal(err)
		}
		log.Debug().Msg("d")
		log.Info().Msg("i")
		log.Warn().Msg("w")
		log.Error().Msg("e")
		if n := strings.Count(buf.String(), "\n"); n != tt.wantLines {
			t.Errorf("level %s: %d lines, want %d: %q", tt.level, n, tt.wantLines, buf.String())
		}
	}
}

func TestConsoleOutput(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(&buf, "console", "debug", fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	log.Debug().Str("listen", "127.0.0.1:2181").Err(errors.New("boom")).Msg("zookeeper up")
	line := buf.String()
	for _, want := range []string{"2024-05-06T05:08:09.123Z", "DBG", "zookeeper up", "listen=127.0.0.1:2181", "error=boom"} {
		if !strings.Contains(line, want) {
			t.Errorf("console line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "\x1b[") {
		t.Errorf("console line to a buffer has colour codes: %q", line)
	}
	if strings.HasPrefix(strings.TrimSpace(line), "{") {
		t.Errorf("console line looks like JSON: %q", line)
	}
}

// Two loggers with different levels must not affect each other: nothing is
// global.
func TestLoggersAreIndependent(t *testing.T) {
	before := zerolog.GlobalLevel()
	var a, b bytes.Buffer
	la, err := newLogger(&a, "json", "error", fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := newLogger(&b, "json", "debug", fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	la.Debug().Msg("hidden")
	lb.Debug().Msg("shown")
	if a.Len() != 0 || !strings.Contains(b.String(), "shown") {
		t.Errorf("a=%q b=%q", a.String(), b.String())
	}
	if zerolog.GlobalLevel() != before {
		t.Errorf("global level changed to %v", zerolog.GlobalLevel())
	}
}

func TestChildLoggersKeepTimestamp(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(&buf, "json", "info", fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	child := log.With().Str("component", "controller").Logger()
	child.Info().Msg("x")
	if !strings.Contains(buf.String(), `"time":"2024-05-06T05:08:09.123Z"`) ||
		!strings.Contains(buf.String(), `"component":"controller"`) {
		t.Errorf("child line %q lacks time or component", buf.String())
	}
}
