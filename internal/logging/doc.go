// Package logging builds the zerolog loggers kzadmin's commands hand down to
// every other package.
//
// It sets no zerolog globals (no SetGlobalLevel, no TimeFieldFormat): each
// logger carries its own level, writer and timestamp hook, so two loggers in
// one process (a test and the code under test, say) never disturb each other.
//
// JSON is the default format, one object per line, for log shippers. The
// console format is zerolog's human-readable ConsoleWriter, meant for
// `kzadmind --dev`. Both stamp every event with a "time" field in RFC3339
// with milliseconds, in UTC.
package logging
