//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || windows)

package iostreams

import "errors"

// echoOff is not known on this system: ReadSecret falls back to
// term.ReadPassword, which turns echo off once it starts reading.
func echoOff(int) (func(), error) { return nil, errors.New("iostreams: echo control unknown here") }
