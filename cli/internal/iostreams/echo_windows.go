package iostreams

import "golang.org/x/sys/windows"

// echoOff turns the console's echo off, keeping line input and Ctrl-C,
// and returns how to turn it back on (see echo_unix.go).
func echoOff(fd int) (restore func(), err error) {
	h := windows.Handle(fd)
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return nil, err
	}
	next := mode&^windows.ENABLE_ECHO_INPUT | windows.ENABLE_PROCESSED_INPUT | windows.ENABLE_LINE_INPUT
	if err := windows.SetConsoleMode(h, next); err != nil {
		return nil, err
	}
	return func() { _ = windows.SetConsoleMode(h, mode) }, nil
}
