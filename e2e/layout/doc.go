// Package layout holds the tests that keep the workspace's package layout
// as docs/architecture.md draws it: which package may import which, the
// root package core on the standard library alone, and test kits (a
// package whose path has an element ending in "test") out of every
// production package. It has no code of its own.
package layout
