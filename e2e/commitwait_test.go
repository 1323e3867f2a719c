package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

// A commit that must wait for another commit of the same document says so
// at once on the terminal — what it waits for, held by which commit, until
// when, and when it gives up — instead of sitting silent; it goes on as
// soon as the lock is free. The other commit is stood in for by its lock,
// taken in the workspace's store by this test (as a killed process leaves
// it).
func TestWaitingCommitIsNotSilent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOptions{})
	p := planSpec{id: "waited", epics: 1, stories: 1}
	e.write("waited.md", p.markdown())

	st, err := sqlitestore.Open(ctx, sqlitestore.Options{Path: filepath.Join(e.dir, "state.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lock := "import|" + e.jira.URL + "/" + project + "|waited"
	other, err := st.AcquireLock(ctx, lock, "other-key|imp_other", 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// The other commit is running: it renews its lock every second, as a
	// commit does (a silent holder is reported as not running).
	stop := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				_, _ = st.AcquireLock(ctx, lock, "other-key|imp_other", 2*time.Minute)
			}
		}
	}()

	s := e.ptyAtPrompt("import", "waited.md")
	s.send("y\r")
	const waiting = "Waiting for another commit of document waited to finish"
	if !s.waitFor(waiting, 2*time.Minute) {
		t.Fatalf("the waiting commit did not say what it waits for:\n%s", s.shown())
	}
	shown := strings.Join(strings.Fields(s.shown()), " ") // wrapped at 80 columns
	for _, want := range []string{"idempotency key other-key, preview imp_other", "its lock lasts until", "This commit gives up at"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the wait notice does not say %q:\n%s", want, s.shown())
		}
	}
	close(stop)
	<-renewed
	if err := other.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if r := s.wait(3 * time.Minute); r.code != 0 {
		t.Fatalf("the commit after the wait: %s", r)
	}
	e.matches(p)
}
