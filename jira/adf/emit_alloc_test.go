package adf

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestManyTextNodesAllocateAboutTwiceTheirSize: a paragraph of 16,000
// text nodes of alternating marks ("*a*a*a…") is built in about twice its
// nodes' size of allocations (grown a quarter at a time, about five
// times).
func TestManyTextNodesAllocateAboutTwiceTheirSize(t *testing.T) {
	const n = 16000
	em := []Mark{{Type: "em"}}
	c := &fromConv{}
	var out []Node
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		c.emit(&out, "a", map[bool][]Mark{true: em}[i%2 == 0])
	}
	runtime.ReadMemStats(&after)
	if len(out) != n {
		t.Fatalf("%d nodes; want %d", len(out), n)
	}
	nodes := uint64(n) * uint64(unsafe.Sizeof(Node{}))
	marks := uint64(n/2) * uint64(unsafe.Sizeof(Mark{}))
	if got := after.TotalAlloc - before.TotalAlloc; got > 3*nodes+2*marks {
		t.Errorf("%d text nodes took %d bytes; want at most %d (three times their size, and their marks)", n, got, 3*nodes+2*marks)
	}
}
