package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// seedAsPerson creates an issue in the fake Jira as a person would (no
// reference, no DevWorkWire property) and returns its key.
func (e *env) seedAsPerson(issueType, summary, parent string, labels ...string) string {
	e.t.Helper()
	b, _ := json.Marshal(map[string]any{"issuetype": issueType, "summary": summary, "parent": parent, "labels": labels,
		"description_markdown_text": "What " + summary + " is about.\n\n- a point\n- another"})
	resp, err := http.Post(e.jira.URL+"/_mockjira/issues", "application/json", bytes.NewReader(b))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var is struct{ Key string }
	if err := json.NewDecoder(resp.Body).Decode(&is); err != nil || resp.StatusCode != http.StatusCreated || is.Key == "" {
		e.t.Fatalf("seed %s %q: status %d, %v", issueType, summary, resp.StatusCode, err)
	}
	return is.Key
}

// adoptPreview is what an import preview shows of adopt rows.
type adoptPreview struct {
	PreviewHandle string `json:"preview_handle"`
	Counts        struct {
		Create, Update, Unchanged, Adopt int
	} `json:"counts"`
	Items []struct {
		Reference, Action, Key string
		Changes                []struct{ Field, From, To string }
	} `json:"items"`
}

// TestAdoptBothDoors through the real processes: existing
// issues made by people are adopted by Key lines — over MCP
// (import_preview shows adopt rows with the title diff, import_commit
// writes the references, no create) and through the CLI on a terminal; a
// re-import is unchanged with zero writes; an issue that already carries
// a reference is refused with VALIDATION_FAILED by both doors, zero
// writes.
func TestAdoptBothDoors(t *testing.T) {
	e := newEnv(t, envOptions{})
	epic := e.seedAsPerson("Epic", "Checkout (old name)", "")
	story := e.seedAsPerson("Story", "Pay", epic)
	loose := e.seedAsPerson("Story", "Loose idea", "")
	e.write("shop.md", "---\nid: shop\n---\n## Epic e-1: Checkout\nKey: "+epic+"\n\n### Story s-1: Pay\nKey: "+story+"\n")

	cs, _ := e.mcp()
	w0 := e.writes()
	var pv adoptPreview
	if d := e.call(cs, "import_preview", map[string]any{"path": "shop.md"}, &pv); d != nil {
		t.Fatalf("import_preview: %v", d)
	}
	if pv.Counts.Adopt != 2 || pv.Counts.Create != 0 || pv.Counts.Update != 0 {
		t.Fatalf("counts %+v; want 2 adopt", pv.Counts)
	}
	for _, it := range pv.Items {
		if it.Action != "adopt" {
			t.Errorf("row %+v; want adopt", it)
		}
		if it.Reference == "shop/e-1" && (len(it.Changes) != 2 || it.Changes[0] != (struct{ Field, From, To string }{"title", "Checkout (old name)", "Checkout"}) || it.Changes[1].Field != "description") {
			t.Errorf("epic row changes %+v; want the title diff and the description (the document has none)", it.Changes)
		}
	}
	if w := e.writes(); w != w0 {
		t.Fatalf("the preview wrote %d times", w-w0)
	}
	var c struct {
		Counts struct{ Created, Adopted int } `json:"counts"`
	}
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, &c); d != nil || c.Counts.Adopted != 2 || c.Counts.Created != 0 {
		t.Fatalf("import_commit: %+v, %v", c, d)
	}
	byRef := e.issuesByRef()
	if byRef["shop/e-1"].Key != epic || byRef["shop/s-1"].Key != story || byRef["shop/e-1"].Summary != "Checkout" || len(e.issues()) != 3 {
		t.Fatalf("after the adopt: %+v (%d issues)", byRef, len(e.issues()))
	}

	// The CLI: a second document adopts the loose story on a terminal.
	e.write("ideas.md", "---\nid: ideas\n---\n## Story i-1: Loose idea\nKey: "+loose+"\nLabels: later\n")
	r := e.dwirePTY("y\r", "import", "ideas.md")
	if r.code != 0 || !strings.Contains(r.stdout, "adopt") || !strings.Contains(r.stdout, loose) || !strings.Contains(r.stdout, "1 adopted") {
		t.Fatalf("CLI adopt: %s", r)
	}
	if is := e.issuesByRef()["ideas/i-1"]; is.Key != loose {
		t.Fatalf("ideas/i-1 is %+v, want %s", is, loose)
	}
	// Re-imported: unchanged, zero writes, through both doors.
	w1 := e.writes()
	var again adoptPreview
	if r := e.dwireJSON(&again, "import", "ideas.md", "--dry-run"); r.code != 0 || again.Counts.Unchanged != 1 || again.Counts.Adopt != 0 {
		t.Errorf("CLI re-import: %+v %s", again.Counts, r)
	}
	if d := e.call(cs, "import_preview", map[string]any{"path": "shop.md"}, &again); d != nil || again.Counts.Unchanged != 2 {
		t.Errorf("MCP re-import: %+v %v", again.Counts, d)
	}
	// Adopting an issue that is another item's: refused by both doors.
	e.write("grab.md", "---\nid: grab\n---\n## Story g-1: Mine now\nKey: "+story+"\n")
	const taken = "already carries the reference shop/s-1"
	refusal := e.call(cs, "import_preview", map[string]any{"path": "grab.md"}, nil)
	r = e.dwire("import", "grab.md", "--dry-run")
	switch msg, _ := refusal["message"].(string); {
	case codeOf(refusal) != "VALIDATION_FAILED" || !strings.Contains(msg, taken):
		t.Errorf("MCP adopt of a taken issue: %v", refusal)
	case r.code != 1 || !strings.Contains(r.stderr, "VALIDATION_FAILED") || !strings.Contains(r.stderr, taken):
		t.Errorf("CLI adopt of a taken issue: %s", r)
	case e.writes() != w1:
		t.Errorf("re-imports and refusals made %d writes", e.writes()-w1)
	}
}

// TestExportThenImportAdoptsOnlyCLI through the real
// binary: a 200-issue backlog made by people in the fake Jira (10 epics,
// 130 stories with labels, each depending on the one before, 60
// sub-tasks; one story assigned to the demo user) is exported with
// `dwire export --project DEMO -o` on a terminal (the assignee as the
// e-mail Jira shows); the document's import preview plans zero creates and zero
// structure writes, only 200 adopts; the commit (confirmed on the
// terminal) adopts them all without a create; the re-import is unchanged;
// -o refuses to overwrite the file.
func TestExportThenImportAdoptsOnlyCLI(t *testing.T) {
	e := newEnv(t, envOptions{})
	for ei := 1; ei <= 10; ei++ {
		epic := e.seedAsPerson("Epic", fmt.Sprintf("Epic %d", ei), "")
		prev := ""
		for si := 1; si <= 13; si++ {
			st := e.seedAsPerson("Story", fmt.Sprintf("Story %d.%d", ei, si), epic, fmt.Sprintf("team-%d", ei%3))
			if prev != "" {
				b, _ := json.Marshal(map[string]string{"blocked": st, "blocker": prev})
				resp, err := http.Post(e.jira.URL+"/_mockjira/links", "application/json", bytes.NewReader(b))
				if err != nil || resp.StatusCode != http.StatusCreated {
					t.Fatalf("link %s to %s: %v %v", st, prev, err, resp)
				}
				resp.Body.Close()
			}
			prev = st
			if si%2 == 0 {
				e.seedAsPerson("Subtask", fmt.Sprintf("Task %d.%d", ei, si), st)
			}
		}
	}
	if n := len(e.issues()); n != 200 {
		t.Fatalf("seeded %d issues", n)
	}
	// A person assigns a story to the demo user: the export writes the
	// e-mail Jira shows, which the import resolves back to the account.
	e.personSetsField("DEMO-2", `{"fields": {"assignee": {"accountId": "`+jiratest.DemoAccountID+`"}}}`)
	w0 := e.writes()
	s := e.ptyStart("export", "--project", "DEMO", "-o", "backlog.md")
	if s == nil {
		t.FailNow()
	}
	r := s.wait(3 * time.Minute)
	if r.code != 0 || !strings.Contains(r.stdout, "Exported document demo to backlog.md: 10 epics, 130 stories, 60 sub-tasks; its first import adopts 200 issues") {
		t.Fatalf("dwire export on a terminal: %s", r)
	}
	doc, err := os.ReadFile(filepath.Join(e.dir, "backlog.md"))
	if err != nil || !strings.Contains(string(doc), "## Epic demo-1: Epic 1\nKey: DEMO-1\n") || !strings.Contains(string(doc), "Labels: team-1\nPriority: Medium\nDepends on: demo-2\n") ||
		!strings.Contains(string(doc), "Key: DEMO-2\nLabels: team-1\nPriority: Medium\nAssignee: demo@example.com\n") {
		t.Fatalf("backlog.md: %v\n%.600s", err, doc)
	}
	var pv struct {
		PreviewHandle string `json:"preview_handle"`
		Counts        struct {
			Create, Update, Unchanged, Adopt, Structure int
		} `json:"counts"`
		Items []struct {
			Key           string   `json:"key"`
			ChangedFields []string `json:"changed_fields"`
		} `json:"items"`
	}
	if r := e.dwireJSON(&pv, "import", "backlog.md", "--dry-run"); r.code != 0 || pv.Counts.Adopt != 200 || pv.Counts.Create != 0 || pv.Counts.Update != 0 || pv.Counts.Structure != 0 {
		t.Fatalf("preview of the export: %+v %s", pv.Counts, r)
	}
	for _, it := range pv.Items {
		if len(it.ChangedFields) > 0 {
			t.Errorf("%s: the adopt changes %v; an export adopts as it is", it.Key, it.ChangedFields)
		}
	}
	if w := e.writes(); w != w0 {
		t.Fatalf("export and preview made %d writes", w-w0)
	}
	r = e.dwirePTY("y\r", "import", "backlog.md")
	if r.code != 0 || !strings.Contains(r.stdout, "Committed: 0 created, 200 adopted, 0 updated, 0 unchanged") {
		t.Fatalf("import of the export: %s", r)
	}
	if n, refs := len(e.issues()), len(e.issuesByRef()); n != 200 || refs != 200 {
		t.Fatalf("%d issues, %d with a reference; want 200 and 200", n, refs)
	}
	if r := e.dwireJSON(&pv, "import", "backlog.md", "--dry-run"); r.code != 0 || pv.Counts.Unchanged != 200 {
		t.Errorf("re-import: %+v %s", pv.Counts, r)
	}
	if r := e.dwire("export", "--project", "DEMO", "-o", "backlog.md"); r.code != 1 || !strings.Contains(r.stderr, "backlog.md exists") {
		t.Errorf("export over an existing file: %s", r)
	}
}
