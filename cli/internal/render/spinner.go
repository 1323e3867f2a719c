package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Spinner tells a person on a terminal that dwire is waiting (for Jira):
// nothing for the first Delay, then a line redrawn in place until Stop
// clears it. Like Bar, other output goes through Around.
type Spinner struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	width   int
	drawn   bool
	frame   int
	stopped bool
	stop    chan struct{}
	done    chan struct{}
}

// SpinnerDelay is how long a wait stays silent before the spinner shows.
const SpinnerDelay = time.Second

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// StartSpinner shows label on w after delay, redrawn every tick, until
// Stop. width bounds the line.
func StartSpinner(w io.Writer, width int, label string, delay, tick time.Duration) *Spinner {
	s := &Spinner{w: w, label: Truncate(label, max(width-3, 10)), width: width, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run(delay, tick)
	return s
}

func (s *Spinner) run(delay, tick time.Duration) {
	defer close(s.done)
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-s.stop:
		return
	case <-t.C:
	}
	tk := time.NewTicker(tick)
	defer tk.Stop()
	for {
		s.mu.Lock()
		if !s.stopped {
			s.draw()
		}
		s.mu.Unlock()
		select {
		case <-s.stop:
			return
		case <-tk.C:
		}
	}
}

func (s *Spinner) draw() {
	fmt.Fprintf(s.w, "\r%s %s", spinnerFrames[s.frame%len(spinnerFrames)], s.label)
	s.frame++
	s.drawn = true
}

func (s *Spinner) clear() {
	if s.drawn {
		fmt.Fprintf(s.w, "\r%s\r", strings.Repeat(" ", utf8.RuneCountInString(s.label)+2))
	}
}

// Around runs write with the spinner's line cleared, then redraws it.
func (s *Spinner) Around(write func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
	write()
	if s.drawn && !s.stopped {
		s.draw()
	}
}

// Stop ends the spinner and clears its line; it returns once nothing more
// will be drawn. Safe to call more than once.
func (s *Spinner) Stop() {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	s.stopped = true
	close(s.stop)
	s.clear()
	s.drawn = false
	s.mu.Unlock()
	<-s.done
}
