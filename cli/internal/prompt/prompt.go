// Package prompt asks a person to confirm a write. The answer defaults to
// no: only "y" or "yes" (any case) confirms; Enter alone, anything else,
// end of input and Ctrl-C all decline, so a stray key press never commits.
package prompt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Answer is the outcome of a confirmation prompt.
type Answer int

// The possible answers.
const (
	No          Answer = iota // declined (Enter, "n", anything but y/yes, end of input)
	Yes                       // "y" or "yes"
	Interrupted               // Ctrl-C or the context ended while waiting
)

// Confirm writes question followed by " [y/N] " on w and reads one line
// from r. It returns Interrupted as soon as ctx is done (Ctrl-C cancels the
// command's context), without waiting for the line.
func Confirm(ctx context.Context, r io.Reader, w io.Writer, question string) Answer {
	fmt.Fprintf(w, "%s [y/N] ", question)
	line, interrupted, eof := readLine(ctx, bufio.NewReader(r), w)
	switch {
	case interrupted:
		return Interrupted
	case eof:
		return No
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return Yes
	}
	return No
}

// readLine reads one line from r, giving up as soon as ctx is done. When
// it has no answer it says why: interrupted (ctx ended, or ^C came as a
// byte from a raw terminal) or eof (the input ended); when ctx ended or
// the input did, it finishes the prompt's line on w.
func readLine(ctx context.Context, r *bufio.Reader, w io.Writer) (line string, interrupted, eof bool) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := r.ReadString('\n')
		ch <- result{line, err}
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(w)
		return "", true, false
	case res := <-ch:
		if res.err != nil && res.line == "" {
			fmt.Fprintln(w) // end of input: finish the prompt's line
			return "", false, true
		}
		if strings.ContainsRune(res.line, 0x03) { // ^C delivered as a byte (raw terminals)
			return "", true, false
		}
		return res.line, false, false
	}
}

// ErrInterrupted is returned by Input when ctx ends (Ctrl-C) or input ends.
var ErrInterrupted = errors.New("prompt: interrupted")

// Input asks for one line of text on w, reading from r. An empty answer
// takes def (shown in brackets). It returns ErrInterrupted when ctx ends or
// the input ends.
func Input(ctx context.Context, r *bufio.Reader, w io.Writer, question, def string) (string, error) {
	if def != "" {
		fmt.Fprintf(w, "%s [%s]: ", question, def)
	} else {
		fmt.Fprintf(w, "%s: ", question)
	}
	line, interrupted, eof := readLine(ctx, r, w)
	if interrupted || eof {
		return "", ErrInterrupted
	}
	v := strings.TrimSpace(line)
	if v == "" {
		v = def
	}
	return v, nil
}
