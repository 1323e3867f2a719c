package jira

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// richDescription is a description as Jira's editor stores it after a
// person formatted it: a mention, a status lozenge, a date, an emoji, a
// link card, an expand and coloured, underlined text.
const richDescription = `{"version":1,"type":"doc","content":[
 {"type":"paragraph","content":[
  {"type":"text","text":"Ask "},
  {"type":"mention","attrs":{"id":"5b10ac8d82e05b22cc7d4ef5","text":"@Ana Lima","accessLevel":""}},
  {"type":"text","text":" before "},
  {"type":"date","attrs":{"timestamp":"1767225600000"}},
  {"type":"text","text":": "},
  {"type":"status","attrs":{"text":"BLOCKED","color":"red","localId":"s1"}},
  {"type":"text","text":" "},
  {"type":"emoji","attrs":{"shortName":":warning:","id":"26a0","text":"⚠️"}},
  {"type":"text","text":" see "},
  {"type":"inlineCard","attrs":{"url":"https://example.atlassian.net/browse/OTHER-1"}},
  {"type":"text","text":" and "},
  {"type":"text","text":"this","marks":[{"type":"underline"},{"type":"textColor","attrs":{"color":"#ff5630"}}]}
 ]},
 {"type":"expand","attrs":{"title":"Details"},"content":[{"type":"paragraph","content":[{"type":"text","text":"Hidden until opened."}]}]}
]}`

// importedThenFormatted imports doc (one story) over HTTP, then a person
// sets the story's description in Jira to adf, as Jira's editor stores
// it. It returns what importedOverHTTP does and the story's key.
func importedThenFormatted(t *testing.T, name, doc, adf string) (*fixture, *service.WorkItemService, string, string) {
	t.Helper()
	f, svc, path := importedOverHTTP(t, name, doc)
	key := f.srv.Issues()[0].Key
	if err := f.srv.EditAsPerson(key, jiratest.PersonEdit{Description: json.RawMessage(adf)}); err != nil {
		t.Fatal(err)
	}
	return f, svc, path, key
}

// TestEditSendsOnlyWhatThePlanChanges: a person formats a story's
// description in Jira; the document then changes only the story's
// estimate. The edit request carries the estimate and no description,
// and the person's description is in Jira as they left it.
func TestEditSendsOnlyWhatThePlanChanges(t *testing.T) {
	doc := "---\nid: rt\n---\n## Story s-1: Pay\nEstimate: 3\n\nPlain text.\n\nAcceptance criteria:\n- [ ] It works\n"
	f, svc, path, key := importedThenFormatted(t, "rt.md", doc, richDescription)
	before, _ := f.srv.Issue(key)
	if err := os.WriteFile(path, []byte(strings.Replace(doc, "Estimate: 3", "Estimate: 5", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || pv.Counts.Update != 1 {
		t.Fatalf("preview: %v %+v %q", err, pv.Counts, pv.Warnings)
	}
	f.srv.ClearRequests()
	if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true}); err != nil {
		t.Fatal(err)
	}
	edits := 0
	for _, r := range f.srv.Requests() {
		if r.Method != "PUT" || r.Path != "/rest/api/3/issue/"+key {
			continue
		}
		edits++
		var body struct {
			Fields map[string]json.RawMessage `json:"fields"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Fatal(err)
		}
		if _, ok := body.Fields["description"]; ok {
			t.Errorf("the edit sends the description the plan keeps: %s", r.Body)
		}
		if _, ok := body.Fields[jiratest.StoryPointEstimateID]; !ok {
			t.Errorf("the edit does not send the estimate: %s", r.Body)
		}
	}
	if edits != 1 {
		t.Fatalf("%d edits of %s; want 1", edits, key)
	}
	after, _ := f.srv.Issue(key)
	if string(after.Description) != string(before.Description) {
		t.Errorf("description after the commit:\n%s\nwant the person's:\n%s", after.Description, before.Description)
	}
	again, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || again.Counts.Update != 0 || again.Counts.Create != 0 {
		t.Errorf("the import after the commit: %v %+v", err, again.Counts)
	}
}

// TestRichTextSurvivesPullAndImport: a person formats a story's
// description in Jira; a pull takes it into the document in the Markdown
// forms of docs/markdown-adf.md; the next import writes nothing; a word
// changed in the document is then written with every mention, date,
// lozenge, emoji, card, colour and expand still there.
func TestRichTextSurvivesPullAndImport(t *testing.T) {
	doc := "---\nid: rp\n---\n## Story s-1: Pay\n\nPlain text.\n"
	f, svc, path, key := importedThenFormatted(t, "rp.md", doc, richDescription)
	pulled := pullOne(t, f, svc, path)
	for _, form := range []string{"[@Ana Lima](mention:5b10ac8d82e05b22cc7d4ef5", "[BLOCKED](status:red", "<details><summary>Details</summary>", `<span style="color: #ff5630">this</span>`} {
		if !strings.Contains(string(pulled), form) {
			t.Errorf("the pulled document lacks %q:\n%s", form, pulled)
		}
	}
	again, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || again.Counts != (service.Counts{Unchanged: 1}) || len(again.Warnings) != 0 {
		t.Fatalf("the import after the pull: %v %+v %q", err, again.Counts, again.Warnings)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(pulled), "Hidden until opened.", "Shown when opened.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || pv.Counts.Update != 1 {
		t.Fatalf("preview of the edited document: %v %+v %q", err, pv.Counts, pv.Warnings)
	}
	if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true}); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(compactJSON(t, richDescription), "Hidden until opened.", "Shown when opened.", 1)
	after, _ := f.srv.Issue(key)
	if got := compactJSON(t, string(after.Description)); !sameADF(t, got, want) {
		t.Errorf("description after the import:\n%s\nwant\n%s", got, want)
	}
}

// TestUnrepresentableDescriptionIsLeftToJira: a description holding what
// the Markdown forms cannot carry (a layout) is not written when the
// document changes it; the preview says why, and Jira keeps it.
func TestUnrepresentableDescriptionIsLeftToJira(t *testing.T) {
	doc := "---\nid: ru\n---\n## Story s-1: Pay\n\nPlain text.\n"
	layout := `{"version":1,"type":"doc","content":[{"type":"layoutSection","content":[
	 {"type":"layoutColumn","attrs":{"width":50},"content":[{"type":"paragraph","content":[{"type":"text","text":"Left"}]}]},
	 {"type":"layoutColumn","attrs":{"width":50},"content":[{"type":"paragraph","content":[{"type":"text","text":"Right"}]}]}]}]}`
	f, svc, path, key := importedThenFormatted(t, "ru.md", doc, layout)
	before, _ := f.srv.Issue(key)
	if err := os.WriteFile(path, []byte(strings.Replace(doc, "## Story s-1: Pay", "## Story s-1: Pay now", 1)+"\nMore text.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pv, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || pv.Counts.Update != 1 {
		t.Fatalf("preview: %v %+v %q", err, pv.Counts, pv.Warnings)
	}
	if !slices.ContainsFunc(pv.Warnings, func(w string) bool {
		return strings.Contains(w, key) && strings.Contains(w, "a layout (columns)") && strings.Contains(w, "not written")
	}) {
		t.Errorf("no warning names the layout the description keeps: %q", pv.Warnings)
	}
	if _, err := svc.ImportCommit(f.ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true}); err != nil {
		t.Fatal(err)
	}
	after, _ := f.srv.Issue(key)
	if string(after.Description) != string(before.Description) || after.Summary != "Pay now" {
		t.Errorf("after the commit: summary %q, description %s; want the new title and the layout kept", after.Summary, after.Description)
	}
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sameADF compares two ADF documents as JSON values.
func sameADF(t *testing.T, a, b string) bool {
	return compactJSON(t, a) == compactJSON(t, b)
}
