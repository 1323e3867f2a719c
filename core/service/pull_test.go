package service_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// pullDoc is a document with text nobody manages (a comment, a blank
// line too many, odd spacing) around the managed values.
const pullDoc = `---
id: shop
---
# Shop

<!-- planning notes: not DevWorkWire's -->

## Epic e-1: Checkout
Priority: Medium

The checkout, end to end.


## Story s-1: Pay as a guest
Epic: e-1
Priority:  High

Guests pay   without an account.

Acceptance criteria:
- [ ] A guest can pay with a card
- [ ] The receipt is e-mailed

## Story s-2: Save the address
Epic: e-1
`

// pullEnv imports pullDoc from a file and returns the env and the path.
func pullEnv(t *testing.T) (*env, string) {
	t.Helper()
	e := newEnv(t)
	return e, e.importFile("shop.md", pullDoc)
}

// importFile writes doc to a file named name (mode 0640) and imports it.
func (e *env) importFile(name, doc string) string {
	e.t.Helper()
	path := e.t.TempDir() + "/" + name
	if err := os.WriteFile(path, []byte(doc), 0o640); err != nil {
		e.t.Fatal(err)
	}
	pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: path})
	if err != nil {
		e.t.Fatal(err)
	}
	e.commit(pre.PreviewHandle, "")
	return path
}

// pullCommit commits the pull preview handle and fails on an error.
func (e *env) pullCommit(handle string) service.PullCommitResult {
	e.t.Helper()
	res, err := e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: handle, Confirmed: true})
	if err != nil {
		e.t.Fatalf("PullCommit: %v", err)
	}
	return res
}

// pullPreview previews a pull and fails on an error, a tracker write or a
// change of the file.
func (e *env) pullPreview(in service.PullPreviewInput) service.PullPreviewResult {
	e.t.Helper()
	before, _ := os.ReadFile(in.Path)
	w := e.p.Writes()
	e.p.ForbidWrites(e.t)
	defer e.p.AllowWrites()
	res, err := e.svc.PullPreview(e.ctx, in)
	if err != nil {
		e.t.Fatalf("PullPreview: %v", err)
	}
	if e.p.Writes() != w {
		e.t.Fatalf("PullPreview wrote to the tracker")
	}
	if after, _ := os.ReadFile(in.Path); string(after) != string(before) {
		e.t.Fatalf("PullPreview changed the file")
	}
	return res
}

func pullRow(t *testing.T, res service.PullPreviewResult, ref core.Reference) service.PullItem {
	t.Helper()
	i := slices.IndexFunc(res.Items, func(it service.PullItem) bool { return it.Reference == ref })
	if i < 0 {
		t.Fatalf("no row for %s in %+v", ref, res.Items)
	}
	return res.Items[i]
}

// conflictEnv has s-1's title changed both in the tracker and in the
// document's file (returned as edited).
func conflictEnv(t *testing.T) (e *env, path, edited string) {
	t.Helper()
	e, path = pullEnv(t)
	if err := e.p.EditTitle(e.byRef()["shop/s-1"].Key, "Pay as a visitor"); err != nil {
		t.Fatal(err)
	}
	edited = strings.Replace(pullDoc, "Story s-1: Pay as a guest", "Story s-1: Guest payment", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	return e, path, edited
}

// wantUnchangedImport: the next import of the file plans nothing.
func (e *env) wantUnchangedImport(path string) {
	e.t.Helper()
	w := e.p.Writes()
	pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: path})
	if err != nil {
		e.t.Fatal(err)
	}
	if pre.Counts != (service.Counts{Unchanged: len(pre.Items)}) || len(pre.Warnings) != 0 {
		e.t.Errorf("the import after the pull: counts %+v, warnings %q; want all unchanged", pre.Counts, pre.Warnings)
	}
	if e.p.Writes() != w {
		e.t.Errorf("the import preview wrote")
	}
}

// A person's changes in the tracker (a description, a ticked criterion, a
// priority) are pulled into the document in place; the bases move with
// one property write per item and nothing else; the next import is
// unchanged.
func TestPullTakesAPersonsChange(t *testing.T) {
	e, path := pullEnv(t)
	s1 := e.byRef()["shop/s-1"]
	if err := e.p.Edit(s1.Key, func(w *core.WorkItem) {
		w.Description = "Guests pay without an account, by card or wallet."
		w.AcceptanceCriteria = []string{"[x] A guest can pay with a card", "[ ] The receipt is e-mailed"}
	}); err != nil {
		t.Fatal(err)
	}
	if err := e.p.SetField(s1.Key, "priority", []string{"Highest"}); err != nil {
		t.Fatal(err)
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	row := pullRow(t, res, "shop/s-1")
	if row.Action != service.PullActionPull || res.Counts.Pull != 1 || res.Counts.Unchanged != 2 || !res.Writes || res.PreviewHandle == "" {
		t.Fatalf("counts %+v row %+v", res.Counts, row)
	}
	for _, ch := range row.Changes {
		if ch.Take != service.TakeTracker || ch.Conflict {
			t.Errorf("change %+v; want taken from the tracker, no conflict", ch)
		}
	}
	for _, want := range []string{"--- a/shop.md", "-Guests pay   without an account.", "+Guests pay without an account, by card or wallet.", "-- [ ] A guest can pay with a card", "+- [x] A guest can pay with a card", "-Priority:  High", "+Priority:  Highest"} {
		if !strings.Contains(res.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, res.Diff)
		}
	}
	w := e.p.Writes()
	cres, err := e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true, IdempotencyKey: "k1"})
	if err != nil {
		t.Fatalf("PullCommit: %v", err)
	}
	if !cres.FileWritten || len(cres.Settled) != 1 || cres.Settled[0] != s1.Key {
		t.Errorf("commit result %+v", cres)
	}
	if n := e.p.Writes() - w; n != 1 {
		t.Errorf("the pull commit made %d tracker writes; want 1 (the base of s-1)", n)
	}
	got, _ := os.ReadFile(path)
	want := strings.NewReplacer("Guests pay   without an account.", "Guests pay without an account, by card or wallet.",
		"- [ ] A guest can pay with a card", "- [x] A guest can pay with a card", "Priority:  High", "Priority:  Highest").Replace(pullDoc)
	if string(got) != want {
		t.Errorf("file after the pull:\n%s\nwant\n%s", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("file mode %v; want 0640 kept", fi.Mode().Perm())
	}
	if after := e.byRef()["shop/s-1"]; after.Description != "Guests pay without an account, by card or wallet." || after.Fields["priority"][0] != "Highest" {
		t.Errorf("the pull changed the item in the tracker: %+v", after)
	}
	e.wantUnchangedImport(path)
	// The same key replays, writing nothing.
	w = e.p.Writes()
	again, err := e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true, IdempotencyKey: "k1"})
	if err != nil || !again.Replayed || e.p.Writes() != w {
		t.Errorf("replay: %+v %v, %d writes", again, err, e.p.Writes()-w)
	}
	// After the pull the document leads again: its next change is an
	// update, not a conflict.
	if err := os.WriteFile(path, []byte(strings.Replace(want, "by card or wallet", "by card", 1)), 0o640); err != nil {
		t.Fatal(err)
	}
	pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || pre.Counts.Update != 1 || pre.Counts.Drift != 0 {
		t.Errorf("a document change after the pull: %+v %v", pre.Counts, err)
	}
}

// Changed on both sides: both shown, neither taken, until a per-item
// choice takes one.
func TestPullConflictTakesNeitherWithoutAChoice(t *testing.T) {
	e, path, _ := conflictEnv(t)
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	row := pullRow(t, res, "shop/s-1")
	if row.Action != service.PullActionConflict || res.Counts.Conflict != 1 || res.Diff != "" || res.Writes {
		t.Fatalf("counts %+v writes %v diff %q row %+v", res.Counts, res.Writes, res.Diff, row)
	}
	if len(row.Changes) != 1 || row.Changes[0].Document != "Guest payment" || row.Changes[0].Tracker != "Pay as a visitor" || row.Changes[0].Take != "" || !row.Changes[0].Conflict {
		t.Errorf("changes %+v; want the title with both values, taken from neither", row.Changes)
	}

	// --take-tracker s-1: the tracker's title goes into the document.
	res = e.pullPreview(service.PullPreviewInput{Path: path, TakeTracker: []string{"s-1"}})
	if row := pullRow(t, res, "shop/s-1"); row.Action != service.PullActionPull || row.Changes[0].Take != service.TakeTracker || !strings.Contains(res.Diff, "+## Story s-1: Pay as a visitor") {
		t.Fatalf("take tracker: %+v\n%s", row, res.Diff)
	}
	e.pullCommit(res.PreviewHandle)
	e.wantUnchangedImport(path)
}

// Keeping the document's side of a conflict moves the base only: the file
// stays, and the next import writes the document's value.
func TestPullTakeDocumentMovesTheBase(t *testing.T) {
	e, path, edited := conflictEnv(t)
	res := e.pullPreview(service.PullPreviewInput{Path: path, TakeDocument: []string{"shop/s-1"}})
	if row := pullRow(t, res, "shop/s-1"); row.Action != service.PullActionSettle || row.Changes[0].Take != service.TakeDocument || res.Diff != "" || !res.Writes {
		t.Fatalf("take document: %+v %+v", row, res)
	}
	e.pullCommit(res.PreviewHandle)
	if got, _ := os.ReadFile(path); string(got) != edited {
		t.Errorf("the file changed")
	}
	pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || pre.Counts.Update != 1 || pre.Counts.Drift != 0 {
		t.Fatalf("the import after keeping the document: %+v %v", pre.Counts, err)
	}
}

// Nothing managed changed: nothing to pull, no handle, nothing written.
func TestPullNothingToPull(t *testing.T) {
	e, path := pullEnv(t)
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	if res.Writes || res.Diff != "" || res.PreviewHandle != "" || res.Counts != (service.PullCounts{Unchanged: 3}) {
		t.Fatalf("%+v", res)
	}
	// A change only the document made is not the pull's: nothing to
	// write either (the next import writes it).
	if err := os.WriteFile(path, []byte(strings.Replace(pullDoc, "Story s-1: Pay as a guest", "Story s-1: Guest payment", 1)), 0o640); err != nil {
		t.Fatal(err)
	}
	if res := e.pullPreview(service.PullPreviewInput{Path: path}); res.Writes || res.Counts != (service.PullCounts{Unchanged: 3}) {
		t.Fatalf("a document-only change: %+v", res)
	}
}

// The file changed between the preview and the commit: refused, nothing
// written (neither the file nor the tracker).
func TestPullRefusesAFileChangedSinceThePreview(t *testing.T) {
	e, path := pullEnv(t)
	s1 := e.byRef()["shop/s-1"]
	if err := e.p.EditTitle(s1.Key, "Pay as a visitor"); err != nil {
		t.Fatal(err)
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	meanwhile := pullDoc + "\nA note added after the preview.\n"
	if err := os.WriteFile(path, []byte(meanwhile), 0o644); err != nil {
		t.Fatal(err)
	}
	w := e.p.Writes()
	_, err := e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewStale, "changed since the pull preview", "Nothing was written")
	if got, _ := os.ReadFile(path); string(got) != meanwhile || e.p.Writes() != w {
		t.Errorf("something was written: %d tracker writes, file %q", e.p.Writes()-w, got)
	}
	// And an item changed since the preview is refused the same way.
	res = e.pullPreview(service.PullPreviewInput{Path: path})
	if err := e.p.EditTitle(s1.Key, "Pay, again"); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewStale, "Nothing was written")
	if got, _ := os.ReadFile(path); string(got) != meanwhile {
		t.Errorf("the file was written")
	}
}

// A document never imported is refused; a pull handle is not an import's.
func TestPullRefusals(t *testing.T) {
	e := newEnv(t)
	path := t.TempDir() + "/shop.md"
	if err := os.WriteFile(path, []byte(pullDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.PullPreview(e.ctx, service.PullPreviewInput{Path: path})
	wantErr(t, err, core.CodeWorkItemNotFound, "never imported", "Import it first")

	e, path = pullEnv(t)
	_, err = e.svc.PullPreview(e.ctx, service.PullPreviewInput{Path: path, TakeTracker: []string{"s-9"}})
	wantErr(t, err, core.CodeValidationFailed, "s-9", "1 item chosen to take the tracker's values for is not in the document")
	if err := e.p.EditTitle(e.byRef()["shop/s-1"].Key, "Pay as a visitor"); err != nil {
		t.Fatal(err)
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	_, err = e.svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodePreviewNotFound, "pull preview handle")
	_, err = e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle})
	wantErr(t, err, core.CodeConfirmationRequired)
}

// A YAML document, with a field its defaults set: the person's title,
// ticked box and priority go into the file (the priority as the item's
// own key, since a default set it), the rest of the file stays.
func TestPullYAMLAndADefaultField(t *testing.T) {
	e := newEnv(t)
	doc := "id: shop   # kept\ndefaults:\n  priority: Medium\nstories:\n  - id: s-1\n    title: Pay as a guest   # kept too\n    acceptance_criteria:\n      - \"[ ] A guest can pay\"\n"
	path := e.importFile("shop.yaml", doc)
	key := e.byRef()["shop/s-1"].Key
	if err := e.p.Edit(key, func(w *core.WorkItem) {
		w.Title = "Pay as a visitor"
		w.AcceptanceCriteria = []string{"[x] A guest can pay"}
	}); err != nil {
		t.Fatal(err)
	}
	if err := e.p.SetField(key, "priority", []string{"High"}); err != nil {
		t.Fatal(err)
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	if res.Counts.Pull != 1 {
		t.Fatalf("%+v", res)
	}
	e.pullCommit(res.PreviewHandle)
	got, _ := os.ReadFile(path)
	want := "id: shop   # kept\ndefaults:\n  priority: Medium\nstories:\n  - id: s-1\n    title: Pay as a visitor   # kept too\n    priority: High\n    acceptance_criteria:\n      - \"[x] A guest can pay\"\n"
	if string(got) != want {
		t.Errorf("file:\n%s\nwant\n%s", got, want)
	}
	e.wantUnchangedImport(path)
}

// An item in conflict on one part still gets its other changed parts
// pulled into the file; its base does not move (no tracker write), and
// the next import shows the conflict alone.
func TestPullConflictPullsTheOtherParts(t *testing.T) {
	e, path, edited := conflictEnv(t)
	s1 := e.byRef()["shop/s-1"].Key
	if err := e.p.Edit(s1, func(w *core.WorkItem) { w.Description = "Guests pay by card." }); err != nil {
		t.Fatal(err)
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	if row := pullRow(t, res, "shop/s-1"); row.Action != service.PullActionConflict || len(row.Changes) != 2 || !strings.Contains(res.Diff, "+Guests pay by card.") {
		t.Fatalf("row %+v\n%s", row, res.Diff)
	}
	w := e.p.Writes()
	e.pullCommit(res.PreviewHandle)
	if e.p.Writes() != w {
		t.Errorf("the base of an item in conflict moved")
	}
	if got, _ := os.ReadFile(path); string(got) != strings.Replace(edited, "Guests pay   without an account.", "Guests pay by card.", 1) {
		t.Errorf("file:\n%s", got)
	}
	pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || pre.Counts.Drift != 1 || pre.Counts.Update != 0 {
		t.Fatalf("the import after: %+v %v", pre.Counts, err)
	}
	for _, it := range pre.Items {
		for _, ch := range it.Changes {
			if ch.Field != "title" {
				t.Errorf("the import after the pull shows %s as changed; want the title's conflict only", ch.Field)
			}
		}
	}
}

// A person reassigned in the tracker is written into the document as the
// configuration names them (FieldOptions.People), not as an account id,
// and the next import resolves it back: unchanged.
func TestPullWritesPeopleByName(t *testing.T) {
	e := newEnv(t)
	e.p.SetFieldMeta(fakeprovider.FieldMeta{Users: map[string][]string{"demo@example.com": {"acc-demo"}, "dev@example.com": {"acc-dev"}}})
	e.svc = e.serviceWith(service.ServiceOptions{Fields: service.FieldOptions{People: map[string]string{"acc-dev": "dev@example.com"}}})
	path := e.importFile("team.md", "---\nid: team\n---\n## Story s-1: Pay\nAssignee: demo@example.com\n")
	if err := e.p.SetField(e.byRef()["team/s-1"].Key, "assignee", []string{"acc-dev"}); err != nil {
		t.Fatal(err)
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	if !strings.Contains(res.Diff, "+Assignee: dev@example.com") {
		t.Fatalf("diff:\n%s", res.Diff)
	}
	e.pullCommit(res.PreviewHandle)
	e.wantUnchangedImport(path)
}

// A pull moves the bases with the values behind them (ItemSpec.BaseValues,
// as an import keeps them): a field pulled from the tracker (the
// priority), a field the document and the tracker agree on (the team) and
// the title. When a person and the document then change each differently,
// the next import preview shows every conflict with its base, what the
// person changed and what the document changed — not only the two values.
func TestPullKeepsBaseValuesForTheNextConflict(t *testing.T) {
	e := kindsEnv(t)
	doc := "---\nid: fk\n---\n## Story s-1: Pay\nPriority: High\nTeam: Payments\n"
	path := e.importFile("fk.md", doc)
	key := e.byRef()["fk/s-1"].Key
	if err := e.p.SetField(key, core.FieldPriority, []string{"Highest"}); err != nil {
		t.Fatal(err)
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	if row := pullRow(t, res, "fk/s-1"); row.Action != service.PullActionPull {
		t.Fatalf("pull row %+v", row)
	}
	e.pullCommit(res.PreviewHandle)
	pulled, _ := os.ReadFile(path)
	if !strings.Contains(string(pulled), "Priority: Highest\n") {
		t.Fatalf("the pull did not write the priority:\n%s", pulled)
	}
	e.wantUnchangedImport(path)

	// Then both sides change the same values, differently.
	if err := e.p.SetField(key, core.FieldPriority, []string{"Low"}); err != nil {
		t.Fatal(err)
	}
	if err := e.p.SetField(key, "fields.Team", []string{"Mobile"}); err != nil {
		t.Fatal(err)
	}
	if err := e.p.EditTitle(key, "Pay by card"); err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer("Priority: Highest", "Priority: Medium", "Team: Payments", "Team: Web", "Story s-1: Pay", "Story s-1: Pay as a guest").Replace(string(pulled))
	row := planRow(t, e.preview(edited), "fk/s-1")
	for _, want := range []struct{ field, base, tracker, document string }{
		{core.FieldPriority, "Highest", "Low", "Medium"},
		{"fields.Team", "Payments", "Mobile", "Web"},
		{core.ContentTitle, "Pay", "Pay by card", "Pay as a guest"},
	} {
		c, ok := changeOf(row, want.field)
		switch {
		case !ok || !c.Conflict:
			t.Errorf("%s: change %+v (found %v); want a conflict", want.field, c, ok)
		case c.Tracker == nil || c.Document == nil:
			t.Errorf("%s: conflict %+v without its sides: the pull did not keep the base value", want.field, c)
		case c.Base != want.base || c.Tracker.To != want.tracker || c.Document.To != want.document:
			t.Errorf("%s: base %q, tracker %q, document %q; want %q, %q, %q", want.field, c.Base, c.Tracker.To, c.Document.To, want.base, want.tracker, want.document)
		}
	}
}

// A person the configuration has no name for is pulled as the export
// writes them: by the e-mail the tracker shows (PeopleReader), else by the
// account id; both import back unchanged.
func TestPullWritesPeopleByEmail(t *testing.T) {
	e := newEnv(t)
	e.p.SetFieldMeta(fakeprovider.FieldMeta{Users: map[string][]string{"demo@example.com": {"acc-demo"}, "ana@example.com": {"acc-ana"}, "Cy Ray": {"acc-cy"}}})
	path := e.importFile("team.md", "---\nid: team\n---\n## Story s-1: Pay\nAssignee: demo@example.com\n\n## Story s-2: Ship\nAssignee: demo@example.com\n")
	byRef := e.byRef()
	for ref, acc := range map[core.Reference]string{"team/s-1": "acc-ana", "team/s-2": "acc-cy"} {
		if err := e.p.SetField(byRef[ref].Key, core.FieldAssignee, []string{acc}); err != nil {
			t.Fatal(err)
		}
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	if !strings.Contains(res.Diff, "+Assignee: ana@example.com") || !strings.Contains(res.Diff, "+Assignee: acc-cy") {
		t.Fatalf("diff:\n%s", res.Diff)
	}
	e.pullCommit(res.PreviewHandle)
	e.wantUnchangedImport(path)
}

// CommitInput.WriteWithin confines the pull's write to a folder: a file
// outside it is refused (SOURCE_NOT_FOUND) and left as it was, nothing is
// recorded in the tracker; inside it the pull writes as before.
func TestPullCommitWritesOnlyWithin(t *testing.T) {
	e, path, res := titlePull(t, "shop/s-1", "Pay as a visitor")
	w := e.p.Writes()
	_, err := e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true, WriteWithin: t.TempDir()})
	wantErr(t, err, core.CodeSourceNotFound, "could not be written", "outside the folder")
	if b, _ := os.ReadFile(path); string(b) != pullDoc || e.p.Writes() != w {
		t.Errorf("a refused write changed the file or the tracker (%d writes)", e.p.Writes()-w)
	}
	res = e.pullPreview(service.PullPreviewInput{Path: path})
	if _, err := e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true, WriteWithin: path[:strings.LastIndexByte(path, '/')]}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "Story s-1: Pay as a visitor") {
		t.Errorf("file after the pull:\n%s", b)
	}
}

// titlePull imports pullDoc, has a person retitle ref in the tracker and
// previews the pull.
func titlePull(t *testing.T, ref core.Reference, title string) (*env, string, service.PullPreviewResult) {
	t.Helper()
	e, path := pullEnv(t)
	if err := e.p.EditTitle(e.byRef()[ref].Key, title); err != nil {
		t.Fatal(err)
	}
	return e, path, e.pullPreview(service.PullPreviewInput{Path: path})
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
			res := e.pullPreview(service.PullPreviewInput{Path: path})
			before, _ := os.ReadFile(path)
			svc := e.serviceWith(service.ServiceOptions{Store: &flakyStore{Store: e.st, failFrom: tc.failFrom}})
			w := e.p.Writes()
			_, err := svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true, IdempotencyKey: "rec"})
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

// An item whose tracker values the document cannot hold (a title with a
// control character) is left as it is, with a warning saying which and
// why, and the other items are pulled; Items narrows the pull to the
// named items, and names no item it does not know.
func TestPullLeavesWhatItCannotWriteAndNarrows(t *testing.T) {
	e, path := pullEnv(t)
	byRef := e.byRef()
	if err := e.p.EditTitle(byRef["shop/s-1"].Key, "Pay\x07 now"); err != nil {
		t.Fatal(err)
	}
	if err := e.p.EditTitle(byRef["shop/s-2"].Key, "Save the address for later"); err != nil {
		t.Fatal(err)
	}
	res := e.pullPreview(service.PullPreviewInput{Path: path})
	if a := pullRow(t, res, "shop/s-1").Action; a != service.PullActionSkipped {
		t.Errorf("s-1: %s; want skipped", a)
	}
	if a := pullRow(t, res, "shop/s-2").Action; a != service.PullActionPull {
		t.Errorf("s-2: %s; want pull", a)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "Story s-1 ("+byRef["shop/s-1"].Key+")") || !strings.Contains(res.Warnings[0], "control character") {
		t.Errorf("warnings %q; want one naming s-1 and why", res.Warnings)
	}
	if !strings.Contains(res.Diff, "+## Story s-2: Save the address for later") || strings.Contains(res.Diff, "Pay\x07") {
		t.Errorf("diff:\n%s", res.Diff)
	}

	res = e.pullPreview(service.PullPreviewInput{Path: path, Items: []string{"shop/s-2"}})
	if len(res.Items) != 1 || res.Items[0].Reference != "shop/s-2" || len(res.Warnings) != 0 {
		t.Errorf("narrowed to s-2: rows %+v, warnings %q", res.Items, res.Warnings)
	}
	_, err := e.svc.PullPreview(e.ctx, service.PullPreviewInput{Path: path, Items: []string{"s-9"}})
	wantErr(t, err, core.CodeValidationFailed, "s-9")
}

// A person choosing take-document or take-tracker sees what would be
// overwritten: a conflict's values are shown whole, however long.
func TestPullShowsLongValuesWhole(t *testing.T) {
	e, path := pullEnv(t)
	s1 := e.byRef()["shop/s-1"]
	tracker := "Guests pay without an account, by card or wallet; the receipt goes to the address they typed, and nothing about them is kept after the order ships."
	if err := e.p.Edit(s1.Key, func(w *core.WorkItem) { w.Description = tracker }); err != nil {
		t.Fatal(err)
	}
	doc, _ := os.ReadFile(path)
	mine := "Guests pay without an account. They can also choose to save the card for next time, which creates an account after the order is paid."
	if err := os.WriteFile(path, []byte(strings.Replace(string(doc), "Guests pay   without an account.", mine, 1)), 0o640); err != nil {
		t.Fatal(err)
	}
	row := pullRow(t, e.pullPreview(service.PullPreviewInput{Path: path}), "shop/s-1")
	i := slices.IndexFunc(row.Changes, func(c service.PullChange) bool { return c.Field == "description" })
	if i < 0 || !row.Changes[i].Conflict {
		t.Fatalf("changes %+v; want the description in conflict", row.Changes)
	}
	if c := row.Changes[i]; c.Tracker != tracker || c.Document != mine {
		t.Errorf("conflict shows\n  tracker  %q\n  document %q\nwant the whole values\n  %q\n  %q", c.Tracker, c.Document, tracker, mine)
	}
}
