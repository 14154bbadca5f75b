package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progressBar draws "[#######.......] 7/15 partitions (46%) 12s" on w. On
// a terminal it redraws one line; elsewhere (logs, CI) it prints a line
// only when the count changes, so the output stays readable.
type progressBar struct {
	w     io.Writer
	tty   bool
	total int
	what  string
	start time.Time
	last  int
	drawn bool
	width int
}

func newProgressBar(w io.Writer, tty bool, total int, what string) *progressBar {
	return &progressBar{w: w, tty: tty, total: total, what: what, start: time.Now(), last: -1, width: 30}
}

// update shows done of total.
func (p *progressBar) update(done int) {
	if !p.tty && done == p.last {
		return
	}
	p.last = done
	filled := 0
	if p.total > 0 {
		filled = done * p.width / p.total
	}
	pct := 100
	if p.total > 0 {
		pct = done * 100 / p.total
	}
	line := fmt.Sprintf("[%s%s] %d/%d %s (%d%%) %s", strings.Repeat("#", filled), strings.Repeat(".", p.width-filled),
		done, p.total, p.what, pct, time.Since(p.start).Round(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.drawn = true
}

// finish ends the bar's line.
func (p *progressBar) finish() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (a *app) terminal() bool {
	if a.opts.Terminal != nil {
		return a.opts.Terminal()
	}
	return isTerminal(a.errOut)
}
