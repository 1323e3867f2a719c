package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Bar is a one-line progress bar redrawn in place on a terminal. It is
// only used when stderr is a terminal. Other output to the same terminal
// (log lines with -v) goes through Around, which clears the bar's line
// first and redraws it after, so the two never share a line.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	label string
	drawn bool
	done  int
	total int
}

// NewBar returns a bar that draws label and done/total on w.
func NewBar(w io.Writer, width int, label string) *Bar {
	if width < 40 {
		width = 40
	}
	return &Bar{w: w, width: width, label: label}
}

// Update redraws the bar; safe for concurrent use.
func (b *Bar) Update(done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if total <= 0 {
		return
	}
	b.done, b.total = min(done, total), total
	b.draw("")
}

func (b *Bar) draw(suffix string) {
	count := fmt.Sprintf(" %d/%d%s", b.done, b.total, suffix)
	cells := b.width - len(b.label) - len(count) - 4
	if cells < 10 {
		cells = 10
	}
	fill := cells * b.done / b.total
	fmt.Fprintf(b.w, "\r%s [%s%s]%s", b.label, strings.Repeat("#", fill), strings.Repeat(".", cells-fill), count)
	b.drawn = true
}

// Around runs write (which prints whole lines to the bar's terminal) with
// the bar's line cleared, then redraws the bar below what was written.
func (b *Bar) Around(write func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		// Blank the bar's line and return to its start (every draw is
		// width-1 columns wide).
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", b.width-1))
	}
	write()
	if b.drawn {
		b.draw("")
	}
}

// Stop redraws the bar at done — where the commit stopped, which is less
// than what was reported when the items of a failed request were counted
// — marked "stopped", and ends its line.
func (b *Bar) Stop(done int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.drawn || b.total <= 0 {
		return
	}
	b.done = max(0, min(done, b.total))
	b.draw(" stopped")
	fmt.Fprintln(b.w)
	b.drawn = false
}

// Done ends the bar's line.
func (b *Bar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}
