package service_test

import (
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// heldEnv leaves epic w/e-1 of releaseDoc held back: its create had an
// unknown outcome (created, response lost), the person then found it
// missing in the tracker (it is deleted here), and search lags.
func heldEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, fakeprovider.Options{SearchLag: true})
	e.oneAtATime()
	pre := e.preview(releaseDoc)
	e.p.FailItem(1, fakeprovider.ItemLost, nil) // e-1: created, response lost
	_, err := e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeCommitPartial, "1 unknown")
	for _, w := range e.p.Items() {
		e.p.Delete(w.Key)
	}
	if got := e.preview(releaseDoc); got.Counts.Blocked != 1 || got.Items[0].BlockedReason == "" {
		t.Fatalf("without a release: %+v; want e-1 held back", got.Counts)
	}
	return e
}

var releaseDoc = markdown("w", epic("e-1", "Only"), story("s-1", "Under it", "e-1"))

func (e *env) previewReleasing(release ...string) (service.ImportPreviewResult, error) {
	e.t.Helper()
	writes := e.p.Writes()
	res, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(releaseDoc), ReleaseHeld: release})
	if e.p.Writes() != writes {
		e.t.Fatalf("the preview wrote to the tracker")
	}
	return res, err
}

// A held-back item the person releases after checking the tracker is
// planned as a create, marked released and warned about; the commit
// creates it once, and its story gets its key.
func TestReleasedHeldItemIsCreatedOnce(t *testing.T) {
	for _, release := range [][]string{{"e-1"}, {"w/e-1"}, {"all"}} {
		t.Run(strings.Join(release, ","), func(t *testing.T) {
			e := heldEnv(t)
			pre, err := e.previewReleasing(release...)
			if err != nil {
				t.Fatalf("preview releasing %v: %v", release, err)
			}
			if pre.Counts != (service.Counts{Create: 2, Released: 1}) {
				t.Errorf("counts %+v; want 2 creates, 1 of them released", pre.Counts)
			}
			row := pre.Items[0]
			if row.Reference != "w/e-1" || row.Action != core.ActionCreate || !row.Released || row.BlockedReason != "" ||
				row.UnknownSince.IsZero() || !strings.Contains(row.ReleaseNote, "released") || !strings.Contains(row.ReleaseNote, "duplicate") {
				t.Errorf("released row %+v", row)
			}
			if pre.Items[1].Released {
				t.Errorf("story row marked released: %+v", pre.Items[1])
			}
			var warned bool
			for _, w := range pre.Warnings {
				warned = warned || strings.Contains(w, "Epic e-1 is RELEASED") && strings.Contains(w, "w/e-1")
			}
			if !warned {
				t.Errorf("warnings %q; want one naming the released e-1", pre.Warnings)
			}
			res := e.commit(pre.PreviewHandle, "")
			if res.Counts.Created != 2 || res.Counts.Unknown != 0 || !res.Items[0].Released || res.Items[1].Released {
				t.Errorf("commit: %+v %+v", res.Counts, res.Items)
			}
			items := e.byRef() // fails on a second issue for a reference
			if len(items) != 2 || items["w/s-1"].ParentKey != items["w/e-1"].Key || items["w/e-1"].Key == "" {
				t.Errorf("tracker after the commit: %+v", items)
			}
			// The dedup index knows it now: re-import is all unchanged.
			e.p.Settle()
			if again := e.preview(releaseDoc); again.Counts != (service.Counts{Unchanged: 2}) {
				t.Errorf("re-preview: %+v", again.Counts)
			}
		})
	}
}

// Releasing what is not held back is refused, naming it, and stores no
// plan; nothing is released by default.
func TestReleasingWhatIsNotHeldIsRefused(t *testing.T) {
	e := heldEnv(t)
	for _, c := range []struct {
		release []string
		item    string
		msg     string
	}{
		{[]string{"s-1"}, "w/s-1", "s-1 is not held back"},
		{[]string{"e-1", "e-9"}, "w/e-9", "e-9 is not an item of document w"},
		{[]string{"other/e-1"}, "other/e-1", "not an item of document w"},
	} {
		_, err := e.previewReleasing(c.release...)
		ce := wantErr(t, err, core.CodeValidationFailed, "Cannot release 1 item(s)", "Held back now: w/e-1")
		if len(ce.Details) != 1 || ce.Details[0].Item != c.item || ce.Details[0].Field != "release_held" || !strings.Contains(ce.Details[0].Message, c.msg) {
			t.Errorf("release %v: details %+v; want %s: %q", c.release, ce.Details, c.item, c.msg)
		}
	}
	// Once nothing is held back, "all" has nothing to release.
	e.clock.Advance(core.DefaultSearchLagWindow)
	_, err := e.previewReleasing("all")
	ce := wantErr(t, err, core.CodeValidationFailed, "Nothing is held back")
	if len(ce.Details) != 1 || !strings.Contains(ce.Details[0].Message, "no item of this document is held back") {
		t.Errorf("details %+v", ce.Details)
	}
	if got := e.preview(releaseDoc); got.Counts != (service.Counts{Create: 2}) || got.Items[0].Released {
		t.Errorf("after the window, without a release: %+v %+v", got.Counts, got.Items[0])
	}
}

// The commit of a release accepts only the marker that was released: a
// newer unknown create of the item (another commit, meanwhile) makes the
// plan stale, and nothing is written.
func TestReleasedPlanIsStaleAfterANewerUnknownCreate(t *testing.T) {
	e := heldEnv(t)
	pre, err := e.previewReleasing("e-1")
	if err != nil || pre.Counts.Released != 1 {
		t.Fatalf("preview releasing e-1: %+v, %v", pre.Counts, err)
	}
	e.clock.Advance(time.Second)
	if err := e.st.UpsertIndex(e.ctx, []core.IndexEntry{{Scope: fakeprovider.DefaultScope, Reference: "w/e-1", Digest: "unknown-create", UpdatedAt: e.clock.Now()}}); err != nil {
		t.Fatal(err)
	}
	writes := e.p.Writes()
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewStale)
	if e.p.Writes() != writes {
		t.Errorf("a stale release wrote %d times", e.p.Writes()-writes)
	}
}

// In a directory, release_held entries go to their document: a reference
// to its own, an id to the one document defining it, all to every
// document (one holding nothing back is no refusal); an id two documents
// define, or a reference outside the directory, is refused.
func TestReleaseHeldInADirectory(t *testing.T) {
	e := newEnv(t, fakeprovider.Options{SearchLag: true})
	e.oneAtATime()
	dir := writeTree(t, map[string]string{"a.md": releaseDoc, "b.md": markdown("other", epic("x-1", "Other"), story("s-1", "Its story", "x-1"))})
	pre, err := e.previewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	e.p.FailItem(1, fakeprovider.ItemLost, nil) // w/e-1: created, response lost
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeCommitPartial, "1 unknown")
	for _, w := range e.p.Items() {
		e.p.Delete(w.Key)
	}
	preview := func(release ...string) (service.ImportPreviewResult, error) {
		t.Helper()
		writes := e.p.Writes()
		res, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: dir, ReleaseHeld: release})
		if e.p.Writes() != writes {
			t.Fatal("the preview wrote to the tracker")
		}
		return res, err
	}
	if held, err := preview(); err != nil || held.Counts.Blocked != 1 {
		t.Fatalf("without a release: %+v, %v; want w/e-1 held back", held.Counts, err)
	}
	for _, release := range [][]string{{"all"}, {"w/e-1"}, {"e-1"}} {
		res, err := preview(release...)
		if err != nil || res.Counts.Blocked != 0 || res.Counts.Released != 1 || !res.Items[0].Released {
			t.Errorf("release %v: %+v, %v; want w/e-1 released", release, res.Counts, err)
		}
	}
	_, err = preview("s-1")
	ce := wantErr(t, err, core.CodeValidationFailed, "Cannot release 1 item(s)")
	if len(ce.Details) != 1 || !strings.Contains(ce.Details[0].Message, "s-1 is an item of 2 documents of this preview; name it by reference (w/s-1)") {
		t.Errorf("details %+v", ce.Details)
	}
	_, err = preview("elsewhere/e-1")
	ce = wantErr(t, err, core.CodeValidationFailed, "Cannot release 1 item(s)")
	if len(ce.Details) != 1 || !strings.Contains(ce.Details[0].Message, "elsewhere/e-1 is not an item of the documents of this preview") {
		t.Errorf("details %+v", ce.Details)
	}
	_, err = preview("other/x-1")
	wantErr(t, err, core.CodeValidationFailed, "Cannot release 1 item(s) that are not held back")

	fresh := newEnv(t)
	_, err = fresh.svc.ImportPreview(fresh.ctx, service.ImportPreviewInput{Path: dir, ReleaseHeld: []string{"all"}})
	wantErr(t, err, core.CodeValidationFailed, "no document of this preview holds an item back")
}
