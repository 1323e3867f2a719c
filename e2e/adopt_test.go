package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// seedAsPerson creates an issue in the fake Jira as a person would (no
// reference, no DevWorkWire property) and returns its key.
func (e *env) seedAsPerson(issueType, summary, parent string) string {
	e.t.Helper()
	b, _ := json.Marshal(map[string]string{"issuetype": issueType, "summary": summary, "parent": parent})
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

// TestAdoptBothDoors (issue 18 §3) through the real processes: existing
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
		if it.Reference == "shop/e-1" && (len(it.Changes) != 1 || it.Changes[0].From != "Checkout (old name)" || it.Changes[0].To != "Checkout") {
			t.Errorf("epic row changes %+v; want the title diff", it.Changes)
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
