package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

func (a *app) jsonOutput() bool { return a.g.Output == "json" }

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// table is a tab-aligned table on w.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	if len(header) > 0 {
		t.row(header...)
	}
	return t
}

func (t *table) row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")) }
func (t *table) flush()              { t.tw.Flush() }

// ids formats broker ids as Kafka's tools do: 1,2,3.
func ids(list []int32) string {
	s := make([]string, len(list))
	for i, id := range list {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ",")
}

// jsonError is the JSON form of a failure.
type jsonError struct {
	Error struct {
		Code     int16  `json:"code,omitempty"`
		Name     string `json:"name,omitempty"`
		Reason   string `json:"reason,omitempty"`
		Resource string `json:"resource,omitempty"`
		Message  string `json:"message"`
	} `json:"error"`
}

// printError reports a failed request on stderr and, with -o json, as a
// JSON object on stdout too.
func (a *app) printError(err error) {
	fmt.Fprintf(a.errOut, "Error: %v\n", err)
	var r reported
	if !a.jsonOutput() || errors.As(err, &r) {
		return
	}
	var je jsonError
	je.Error.Message = err.Error()
	var be *backend.Error
	if errors.As(err, &be) {
		je.Error.Code, je.Error.Name, je.Error.Reason = be.Code, be.Name, be.Reason
		je.Error.Resource, je.Error.Message = be.Resource, be.Message
	}
	_ = a.printJSON(je)
}

// printWrites shows the ZooKeeper writes of a dry run: exactly the ops of
// the one multi the command would apply. Over the wire a dry run is the
// API's validateOnly, which names no writes.
func (a *app) printWrites(w backend.Writes) {
	if len(w.Ops) == 0 && a.g.BootstrapServer != "" {
		fmt.Fprintln(a.out, "Dry run: nothing was written. The cluster validated the request (validateOnly) and would accept it.")
		return
	}
	if len(w.Ops) == 0 {
		fmt.Fprintln(a.out, "Dry run: nothing would be written.")
		return
	}
	fmt.Fprintln(a.out, "Dry run: nothing was written. These ZooKeeper writes would be applied together in one multi:")
	t := newTable(a.out)
	for _, op := range w.Ops {
		t.row("  "+op.Op, op.Path, writeDetail(op))
	}
	t.flush()
}

func writeDetail(op backend.Write) string {
	var parts []string
	switch op.Op {
	case "create":
		parts = append(parts, op.Mode)
	default:
		v := "any version"
		if op.Version >= 0 {
			v = "expect version " + strconv.Itoa(int(op.Version))
		}
		parts = append(parts, v)
	}
	if op.Op == "create" || op.Op == "set" {
		if op.Data == nil {
			parts = append(parts, "data null")
		} else {
			parts = append(parts, "data "+*op.Data)
		}
	}
	return strings.Join(parts, "  ")
}

// result prints a mutation's outcome: JSON (the result itself), the dry
// run's writes, or the human message.
func (a *app) result(v any, w backend.Writes, human func()) error {
	switch {
	case a.jsonOutput():
		return a.printJSON(v)
	case w.DryRun:
		a.printWrites(w)
	default:
		human()
	}
	return nil
}
