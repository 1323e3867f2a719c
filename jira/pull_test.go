package jira

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// importedOverHTTP writes doc to a file named name, starts the fake Jira
// and imports the file through the adapter.
func importedOverHTTP(t *testing.T, name, doc string) (*fixture, *service.WorkItemService, string) {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	f := startJira(t, jiratest.Options{}, nil)
	svc := newService(f.p, service.ServiceOptions{})
	importCommitted(t, f.ctx, svc, service.ImportPreviewInput{Path: path}, "")
	return f, svc, path
}

// importCommitted previews the import of in and commits it (with the
// idempotency key key, if any).
func importCommitted(t *testing.T, ctx context.Context, svc *service.WorkItemService, in service.ImportPreviewInput, key string) {
	t.Helper()
	pv, err := svc.ImportPreview(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ImportCommit(ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: key}); err != nil {
		t.Fatal(err)
	}
}

// pullOne pulls the one item a person changed into the document at path
// and returns the pulled document.
func pullOne(t *testing.T, f *fixture, svc *service.WorkItemService, path string) []byte {
	t.Helper()
	pull, err := svc.PullPreview(f.ctx, service.PullPreviewInput{Path: path})
	if err != nil || pull.Counts.Pull != 1 {
		t.Fatalf("pull preview: %v %+v", err, pull.Counts)
	}
	if _, err := svc.PullCommit(f.ctx, service.CommitInput{PreviewHandle: pull.PreviewHandle, Confirmed: true}); err != nil {
		t.Fatal(err)
	}
	pulled, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return pulled
}

// TestPullOverHTTP: a pull through the adapter takes a person's summary
// and description into the document, writes only the devworkwire
// property (one PUT per item, no issue edit), and the next import of the
// pulled file is unchanged.
func TestPullOverHTTP(t *testing.T) {
	doc := "---\nid: pl\n---\n## Epic e-1: Checkout\n\nFirst text.\n\nAcceptance criteria:\n- [ ] It works\n"
	f, svc, path := importedOverHTTP(t, "pl.md", doc)
	key := f.srv.Issues()[0].Key
	summary, text := "Checkout, renamed in Jira", "Written in Jira."
	if err := f.srv.EditAsPerson(key, jiratest.PersonEdit{Summary: &summary, DescriptionMarkdownText: &text}); err != nil {
		t.Fatal(err)
	}
	writes := len(f.srv.Writes())
	pull, err := svc.PullPreview(f.ctx, service.PullPreviewInput{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.srv.Writes()) != writes || pull.Counts.Pull != 1 || !strings.Contains(pull.Diff, "+## Epic e-1: Checkout, renamed in Jira") {
		t.Fatalf("pull preview: %+v\n%s", pull.Counts, pull.Diff)
	}
	if _, err := svc.PullCommit(f.ctx, service.CommitInput{PreviewHandle: pull.PreviewHandle, Confirmed: true}); err != nil {
		t.Fatal(err)
	}
	ws := f.srv.Writes()[writes:]
	if len(ws) != 1 || ws[0].Method != "PUT" || !strings.HasSuffix(ws[0].Path, "/properties/"+PropertyKey) {
		t.Errorf("the pull's writes: %+v; want one PUT of the property", ws)
	}
	got, _ := os.ReadFile(path)
	// (The person's description replaced the whole field, which holds the
	// criteria too when there is no criteria field: they are gone.)
	if want := strings.NewReplacer("Epic e-1: Checkout", "Epic e-1: "+summary, "First text.", text, "\nAcceptance criteria:\n- [ ] It works\n", "").Replace(doc); string(got) != want {
		t.Errorf("file:\n%s\nwant\n%s", got, want)
	}
	// The property keeps the values behind the moved bases, so a
	// conflict right after the pull shows what each side changed.
	if w, err := f.p.Get(f.ctx, key); err != nil || len(w.BaseValues[core.ContentTitle]) != 1 || w.BaseValues[core.ContentTitle][0] != summary || len(w.BaseValues[core.ContentDescription]) != 1 || w.BaseValues[core.ContentDescription][0] != text {
		t.Errorf("base values after the pull: %q %v; want the pulled title and description", w.BaseValues, err)
	}
	again, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || again.Counts != (service.Counts{Unchanged: 1}) || len(again.Warnings) != 0 {
		t.Errorf("the import after the pull: %+v %q %v", again.Counts, again.Warnings, err)
	}
}

// An issue whose property predates per-part bases is compared as one
// unit: the document unchanged since the last write, the person's summary
// is pulled; the base written then is per part, and the next import is
// unchanged.
func TestPullMigratesAnOlderProperty(t *testing.T) {
	f, svc, path := importedOverHTTP(t, "old.md", "---\nid: old\n---\n## Epic e-1: Checkout\n\nSome text.\n")
	key := f.srv.Issues()[0].Key
	writeOldProperty(t, f.srv, key)
	summary := "Checkout, renamed in Jira"
	if err := f.srv.EditAsPerson(key, jiratest.PersonEdit{Summary: &summary}); err != nil {
		t.Fatal(err)
	}
	pull, err := svc.PullPreview(f.ctx, service.PullPreviewInput{Path: path})
	if err != nil || pull.Counts.Pull != 1 || pull.Counts.Conflict != 0 {
		t.Fatalf("pull of an older property: %v %+v %+v", err, pull.Counts, pull.Items)
	}
	if _, err := svc.PullCommit(f.ctx, service.CommitInput{PreviewHandle: pull.PreviewHandle, Confirmed: true}); err != nil {
		t.Fatal(err)
	}
	if sn, _ := f.srv.Issue(key); !strings.Contains(string(sn.Properties[PropertyKey]), `"content":{`) {
		t.Errorf("the property after the pull has no per-part digests: %s", sn.Properties[PropertyKey])
	}
	again, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || again.Counts != (service.Counts{Unchanged: 1}) {
		t.Errorf("the import after the pull: %+v %v", again.Counts, err)
	}
}

// A pull preview shows a person field's change as a person reads it, not
// as bare account ids: the tracker's side by the display name Jira gave
// with the item ("Bo Berg (acc-bo)", as show does), the document's as the
// document names the person; the document is still written as the export writes people
// (here by the account id: Bo Berg's e-mail is hidden).
func TestPullPreviewNamesPeople(t *testing.T) {
	f, svc, path := reassignedInJira(t)
	pull, err := svc.PullPreview(f.ctx, service.PullPreviewInput{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	var ch *service.PullChange
	for i, it := range pull.Items {
		for j := range it.Changes {
			if it.Changes[j].Field == core.FieldAssignee {
				ch = &pull.Items[i].Changes[j]
			}
		}
	}
	if ch == nil {
		t.Fatalf("no assignee change in the pull preview: %+v", pull.Items)
	}
	if ch.Tracker != "Bo Berg (acc-bo)" || ch.Document != "ana@example.com (acc-ana)" {
		t.Errorf("assignee change shown as document %q, tracker %q; want ana@example.com (acc-ana) and Bo Berg (acc-bo)", ch.Document, ch.Tracker)
	}
	if !strings.Contains(pull.Diff, "+Assignee: acc-bo") {
		t.Errorf("the document is not written as the export writes people:\n%s", pull.Diff)
	}
}
