package storetest

import (
	"io"
	"sync"
	"testing"
)

// OpenConcurrently calls open n times at once, as n processes starting
// together against a fresh database would, closes what it returns, and
// fails t unless every Open and Close succeeded. A store uses it to show
// that its migrations run once however many open it first.
func OpenConcurrently[S io.Closer](t *testing.T, n int, open func() (S, error)) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			s, err := open()
			if err == nil {
				err = s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Open: %v", err)
		}
	}
}
