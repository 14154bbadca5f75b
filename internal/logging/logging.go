package logging

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Format names an output format for New.
type Format string

const (
	// FormatJSON writes one JSON object per event. It is the default.
	FormatJSON Format = "json"
	// FormatConsole writes zerolog's human-readable console lines.
	FormatConsole Format = "console"
)

// TimeLayout is the layout of the "time" field: RFC3339 with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// levelNames lists the accepted level names, most verbose first. It is a
// function rather than a package variable so nobody can change it.
func levelNames() []string {
	return []string{"trace", "debug", "info", "warn", "error", "fatal", "panic", "disabled"}
}

// Levels returns the level names New accepts, most verbose first.
func Levels() []string { return levelNames() }

// Formats returns the format names New accepts.
func Formats() []string { return []string{string(FormatJSON), string(FormatConsole)} }

// ParseLevel maps a level name (case-insensitive) to a zerolog level. Unlike
// zerolog.ParseLevel it refuses the empty string and numbers, so a typo in a
// config file is an error rather than a silent NoLevel.
func ParseLevel(s string) (zerolog.Level, error) {
	levels := []zerolog.Level{
		zerolog.TraceLevel, zerolog.DebugLevel, zerolog.InfoLevel, zerolog.WarnLevel,
		zerolog.ErrorLevel, zerolog.FatalLevel, zerolog.PanicLevel, zerolog.Disabled,
	}
	name := strings.ToLower(strings.TrimSpace(s))
	for i, n := range levelNames() {
		if n == name {
			return levels[i], nil
		}
	}
	return zerolog.NoLevel, fmt.Errorf("log level %q: must be one of %s", s, strings.Join(levelNames(), ", "))
}

// ParseFormat maps a format name (case-insensitive) to a Format. The empty
// string means FormatJSON.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", string(FormatJSON):
		return FormatJSON, nil
	case string(FormatConsole):
		return FormatConsole, nil
	}
	return "", fmt.Errorf("log format %q: must be one of %s", s, strings.Join(Formats(), ", "))
}

// New returns a logger writing to w in the given format ("json" or
// "console"; empty means json) at the given level ("info", "debug", ...).
// A bad format or level is an error naming the allowed values.
func New(w io.Writer, format, level string) (zerolog.Logger, error) {
	return newLogger(w, format, level, time.Now)
}

// newLogger is New with an injectable clock, for tests.
func newLogger(w io.Writer, format, level string, now func() time.Time) (zerolog.Logger, error) {
	f, err := ParseFormat(format)
	if err != nil {
		return zerolog.Nop(), err
	}
	lvl, err := ParseLevel(level)
	if err != nil {
		return zerolog.Nop(), err
	}
	if w == nil {
		return zerolog.Nop(), fmt.Errorf("logging: nil writer")
	}
	out := w
	if f == FormatConsole {
		out = consoleWriter(w)
	}
	// The hook, not Context().Timestamp(), stamps the time: Timestamp()
	// formats with the zerolog.TimeFieldFormat global, which we must not set.
	return zerolog.New(out).Level(lvl).Hook(timeHook{now: now}), nil
}

// timeHook adds the "time" field to every event that is logged.
type timeHook struct{ now func() time.Time }

func (h timeHook) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	e.Str("time", h.now().UTC().Format(TimeLayout))
}

// consoleWriter wraps w in a ConsoleWriter. Colour only goes to a terminal,
// so redirected dev logs stay free of escape codes.
func consoleWriter(w io.Writer) zerolog.ConsoleWriter {
	return zerolog.ConsoleWriter{
		Out:     w,
		NoColor: !isTerminal(w),
		// Our own formatter: the default one parses the timestamp with the
		// zerolog.TimeFieldFormat global. The field is already in TimeLayout,
		// so it is printed as it is.
		FormatTimestamp: func(i any) string {
			if s, ok := i.(string); ok {
				return s
			}
			return fmt.Sprint(i)
		},
	}
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
