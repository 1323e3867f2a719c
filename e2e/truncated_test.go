package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStoreTruncatedUnderALiveAgent: the SQLite store file of a running
// `dwire mcp` is truncated (to nothing, or cut after its first pages)
// between its calls; its next calls that meet the cut name it — the store
// is damaged, restore it from a backup — never "check that the store is
// reachable and not full". Its shared-memory index (state.db-shm)
// truncated is named as such: the data is not affected, start the
// processes again. Nothing is written to Jira by a call that failed so.
func TestStoreTruncatedUnderALiveAgent(t *testing.T) {
	for _, c := range []struct {
		name, file string
		size       int64
		words      []string
	}{
		{"emptied", "state.db", 0, emptied},
		{"cut", "state.db", 4096, []string{"is damaged", "Restore it from a backup"}},
		{"index emptied", "state.db-shm", 0, []string{"shared-memory index", "data is not affected", "start again"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			a := planSpec{id: "alpha", epics: 1, stories: 3}
			e.write("alpha.md", a.markdown())
			cs, _ := e.mcp()
			pv := e.scPreview(cs, "alpha.md") // the store is open and in use
			if err := os.Truncate(filepath.Join(e.dir, c.file), c.size); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			var failed scOutcome
			calls := []struct {
				tool string
				args map[string]any
			}{
				{"import_preview", map[string]any{"path": "alpha.md"}},
				{"import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true, "idempotency_key": newKey()}},
				{"workitem_query", map[string]any{}},
			}
			for _, call := range calls {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				o := e.scCall(ctx, cs, call.tool, call.args)
				cancel()
				if o.transport != nil {
					t.Fatalf("%s: %v", call.tool, o.transport)
				}
				t.Logf("%s after the cut: %s %s", call.tool, o.code(), message(o))
				if o.errData != nil && failed.errData == nil {
					failed = o
				}
			}
			if failed.errData == nil {
				t.Fatalf("no call failed on a store truncated under the agent")
			}
			wantCause(t, message(failed), c.words...)
			if w := e.writesSince(t0); len(w) != 0 {
				t.Errorf("%d Jira writes after the store was cut: %+v", len(w), w)
			}
		})
	}
}

// TestStoreTruncatedUnderBusyAgents: the SQLite store file is emptied
// under a real `dwire mcp` that then serves several calls at once (as an
// agent team's server does), so it opens new connections to the store,
// which read the file as it is now — no tables at all. Every call that
// fails names the cause (the store is damaged, now an empty file, restore
// it from a backup), never "check that the store is reachable and not
// full"; no call writes to Jira.
func TestStoreTruncatedUnderBusyAgents(t *testing.T) {
	e := newEnv(t, envOptions{})
	docs := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}
	for _, d := range docs {
		e.write(d+".md", planSpec{id: d, epics: 1, stories: 2}.markdown())
	}
	cs, _ := e.mcp()
	e.scPreview(cs, "a0.md") // the store is open and in use
	if err := os.Truncate(filepath.Join(e.dir, "state.db"), 0); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	outs := make(chan scOutcome, len(docs))
	for _, d := range docs {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			outs <- e.scCall(ctx, cs, "import_preview", map[string]any{"path": d + ".md"})
		}()
	}
	failed := 0
	for range docs {
		o := <-outs
		if o.transport != nil {
			t.Fatalf("import_preview: %v", o.transport)
		}
		if o.errData == nil {
			continue
		}
		failed++
		wantCause(t, message(o), emptied...)
	}
	if failed == 0 {
		t.Fatalf("no call failed on a store emptied under the agent")
	}
	if w := e.writesSince(t0); len(w) != 0 {
		t.Errorf("%d Jira writes after the store was emptied: %+v", len(w), w)
	}
}

// TestStoreTruncatedUnderALongCommit: the SQLite store file is emptied
// while a real `dwire mcp` commits a plan (every request to the fake
// taking 300 ms, four writes in flight). A commit whose connections
// still hold what it needs finishes; one that meets the cut stops. Every
// answer that meets it — the commit's, the next call's — names the
// cause: the store is damaged, now an empty file, restore it from a
// backup; never "check that the store is reachable and not full".
func TestStoreTruncatedUnderALongCommit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOptions{jira: "  max_in_flight: 4\n"})
	p := planSpec{id: "long", epics: 2, stories: 100}
	e.write("long.md", p.markdown())
	cs, _ := e.mcp()
	pv := e.scPreview(cs, "long.md")
	e.slowJira(300)
	done := make(chan scOutcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		done <- e.scCall(ctx, cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true, "idempotency_key": newKey()})
	}()
	pollUntil(t, 3*time.Minute, "the first story batch is in Jira", func() bool { return len(e.issues()) >= p.epics+50 })
	if err := os.Truncate(filepath.Join(e.dir, "state.db"), 0); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.transport != nil {
		t.Fatalf("the commit whose store was emptied under it: %v", o.transport)
	}
	answers := []scOutcome{o, e.scCall(ctx, cs, "import_preview", map[string]any{"path": "long.md"})}
	for i, a := range answers {
		if a.errData == nil {
			if i == 1 {
				t.Fatalf("the next call on the emptied store succeeded")
			}
			t.Logf("the commit finished on the connections it had")
			continue
		}
		t.Logf("%s: %s", a.code(), message(a))
		wantCause(t, message(a), emptied...)
	}
}

// emptied is what an answer that met a store file emptied under it says.
var emptied = []string{"is damaged", "is now an empty file", "Restore it from a backup"}

// wantCause fails the test unless msg says every one of words and not
// the generic "check that the store is reachable and not full".
func wantCause(t *testing.T, msg string, words ...string) {
	t.Helper()
	if strings.Contains(msg, "reachable and not full") {
		t.Errorf("%q names the wrong cause", msg)
	}
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("%q does not say %q", msg, w)
		}
	}
}
