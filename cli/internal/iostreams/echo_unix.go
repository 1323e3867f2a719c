//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package iostreams

import "golang.org/x/sys/unix"

// echoOff turns the terminal's echo off, keeping line editing and Ctrl-C,
// and returns how to turn it back on. ReadSecret calls it before it shows
// its prompt, so no key pressed after the prompt appears is ever echoed.
func echoOff(fd int) (restore func(), err error) {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	old := *t
	t.Lflag &^= unix.ECHO
	t.Lflag |= unix.ICANON | unix.ISIG
	t.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, t); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, &old) }, nil
}
