package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Bar is a one-line progress bar redrawn in place on a terminal. It is
// only used when stderr is a terminal.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	label string
	drawn bool
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
	if done > total {
		done = total
	}
	count := fmt.Sprintf(" %d/%d", done, total)
	cells := b.width - len(b.label) - len(count) - 4
	if cells < 10 {
		cells = 10
	}
	fill := cells * done / total
	fmt.Fprintf(b.w, "\r%s [%s%s]%s", b.label, strings.Repeat("#", fill), strings.Repeat(".", cells-fill), count)
	b.drawn = true
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
