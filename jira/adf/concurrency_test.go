package adf

import (
	"sync"
	"testing"
)

// TestConcurrentUse: the package keeps no mutable state; conversions run in
// parallel (run with -race) and agree with a sequential run.
func TestConcurrentUse(t *testing.T) {
	want, err := FromMarkdown(storyDescription)
	if err != nil {
		t.Fatal(err)
	}
	wantMD := ToMarkdown(want)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				d, err := FromMarkdown(storyDescription)
				if err != nil || d.String() != want.String() {
					errs <- "FromMarkdown differs"
					return
				}
				if ToMarkdown(d) != wantMD {
					errs <- "ToMarkdown differs"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
