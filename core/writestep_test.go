package core_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/fakeprovider"
)

// A progress commit whose transition the state store cannot record stops
// there: the comment is not sent (a replay of the key could not tell the
// transition was made), and the result says the transition was written.
func TestProgressStopsWhenItsRecordFails(t *testing.T) {
	e := newEnv(t)
	e.importDoc(checkoutDoc())
	key := e.byRef()["checkout/s-1"].Key
	pre := progressPreview(t, e, core.ProgressPreviewInput{Item: key, Status: core.StatusInProgress, Comment: "Started."})
	svc := core.NewWorkItemService(core.ServiceOptions{Provider: e.p, Store: &flakyStore{Store: e.st, failFrom: 1}, Now: e.clock.Now})
	_, err := svc.ProgressCommit(e.ctx, core.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true, IdempotencyKey: "rec"})
	ce := wantErr(t, err, core.CodeCommitPartial, "transition of "+key+" was written", "state store could not record it", "comment was not sent")
	if c := e.p.Comments(key); len(c) != 0 {
		t.Errorf("comments %q sent after the store failed; want none", c)
	}
	if n := e.p.Stats().Calls[fakeprovider.OpComment]; n != 0 {
		t.Errorf("%d comment calls after the store failed; want 0", n)
	}
	if w := e.byRef()["checkout/s-1"]; w.Status != core.StatusInProgress {
		t.Errorf("status %s; want the transition made (in_progress)", w.Status)
	}
	want := []core.Detail{
		{Item: "checkout/s-1", Key: key, Outcome: core.OutcomeCommitted, Message: "transition: moved to in_progress"},
		{Item: "checkout/s-1", Key: key, Outcome: core.OutcomeUntried, Message: "comment: not attempted"},
	}
	if len(ce.Details) != len(want) || ce.Details[0] != want[0] || ce.Details[1] != want[1] {
		t.Errorf("details %+v; want %+v", ce.Details, want)
	}
}

// A pull whose written document the state store cannot record moves no
// base; one whose first base it cannot record moves no further base. The
// result says what was written.
func TestPullStopsWhenItsRecordFails(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failFrom int // the outcome the store refuses: 1 the document's, 2 the first base's
		writes   int // tracker writes (bases moved)
		settled  []string
	}{
		{"document", 1, 0, []string{core.OutcomeUntried, core.OutcomeUntried}},
		{"first base", 2, 1, []string{core.OutcomeCommitted, core.OutcomeUntried}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, path := pullEnv(t)
			refs := []core.Reference{"shop/s-1", "shop/s-2"}
			for _, ref := range refs {
				if err := e.p.Edit(e.byRef()[ref].Key, func(w *core.WorkItem) { w.Description = "Changed in the tracker: " + string(ref) }); err != nil {
					t.Fatal(err)
				}
			}
			res := e.pullPreview(core.PullPreviewInput{Path: path})
			before, _ := os.ReadFile(path)
			svc := core.NewWorkItemService(core.ServiceOptions{Provider: e.p, Store: &flakyStore{Store: e.st, failFrom: tc.failFrom}, Now: e.clock.Now})
			w := e.p.Writes()
			_, err := svc.PullCommit(e.ctx, core.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true, IdempotencyKey: "rec"})
			ce := wantErr(t, err, core.CodeCommitPartial, "state store could not record", "The document was written")
			if n := e.p.Writes() - w; n != tc.writes {
				t.Errorf("%d tracker writes; want %d (nothing after the record failed)", n, tc.writes)
			}
			if after, _ := os.ReadFile(path); string(after) == string(before) {
				t.Error("the document was not written")
			}
			var got []string
			for _, d := range ce.Details {
				got = append(got, d.Outcome)
			}
			if len(got) != len(tc.settled) || got[0] != tc.settled[0] || got[1] != tc.settled[1] {
				t.Errorf("details %+v; want outcomes %v", ce.Details, tc.settled)
			}
		})
	}
}

// No commit path drops a state store error on the floor: no `_ =` on a
// record, an outcome, a run's finish, a fence or an index write, in any
// non-test source of this module.
func TestNoCommitPathIgnoresAStoreError(t *testing.T) {
	ignored := regexp.MustCompile(`_\s*(,\s*_\s*)?=\s*[\w.()]*\.(record|RecordOutcomes|FinishRun|finish|fence|UpsertIndex|RecordBase|StartRun)\(`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if ignored.MatchString(line) {
				t.Errorf("%s:%d ignores a state store error: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
