package e2e

import (
	"strings"
	"testing"
)

// dirPreview is an import preview of a directory, with what its rows and
// documents carry.
type dirPreview struct {
	PreviewHandle string                          `json:"preview_handle"`
	Document      string                          `json:"document"`
	Documents     []struct{ ID, File string }     `json:"documents"`
	Counts        struct{ Create, Unchanged int } `json:"counts"`
	Items         []struct {
		Reference, Document, Action, Parent string
	} `json:"items"`
	Warnings []string `json:"warnings"`
}

// TestDirectoryImportBothDoors through the real processes: a
// directory of planning documents is one preview, one confirmation and
// one commit, its rows grouped per document; a story naming an epic of
// another document of the directory gets that epic as parent although
// both are created by the same commit; a README is skipped and said so.
// The CLI imports plans/ on a terminal; then MCP previews the grown
// directory (import_preview with the directory) and commits it; the next
// preview is all unchanged.
func TestDirectoryImportBothDoors(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.write("plans/infra.md", "---\nid: infra\n---\n# Infra\n\n## Epic e-1: Platform\n\n### Story s-1: Provision the cluster\n")
	e.write("plans/team/app.md", "---\nid: app\n---\n# App\n\n## Story s-1: Use the platform\nEpic: infra/e-1\n\n## Epic e-2: Screens\n\n### Story s-2: Sign-in screen\n")
	e.write("plans/README.md", "# Plans\n\nOne file per team.\n")

	w0 := e.writes()
	r := e.dwirePTY("y\r", "import", "plans/")
	if r.code != 0 {
		t.Fatalf("dwire import plans/: %s", r)
	}
	for _, want := range []string{"Import preview of plans/ (2 documents)", "infra  plans/infra.md", "app  plans/team/app.md", "epic infra/e-1 (another document)", "plans/README.md (no epics, stories or document id", "Committed: 5 created", "DEMO-4  └─ Story app/s-1: Use the platform"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("terminal lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Count(r.stdout, promptMark) != 1 {
		t.Errorf("%d confirmations; want one for the whole directory", strings.Count(r.stdout, promptMark))
	}
	byRef := e.issuesByRef()
	if len(byRef) != 5 || e.writes() == w0 {
		t.Fatalf("tracker holds %d references after the commit", len(byRef))
	}
	if got, want := byRef["app/s-1"].Parent, byRef["infra/e-1"].Key; got == "" || got != want {
		t.Errorf("app/s-1 has parent %q; want infra/e-1 (%s)", got, want)
	}

	// MCP: the directory grows by a document whose story names app's epic.
	e.write("plans/ops/release.yaml", "id: release\nstories:\n  - id: s-1\n    title: Ship the screens\n    epic: app/e-2\n")
	cs, _ := e.mcp()
	var pv dirPreview
	if d := e.call(cs, "import_preview", map[string]any{"path": "plans"}, &pv); d != nil {
		t.Fatalf("import_preview of the directory: %v", d)
	}
	if len(pv.Documents) != 3 || pv.Documents[1].File != "plans/ops/release.yaml" || pv.Counts.Create != 1 || pv.Counts.Unchanged != 5 {
		t.Fatalf("preview: documents %+v, counts %+v", pv.Documents, pv.Counts)
	}
	for _, it := range pv.Items {
		if doc, _, _ := strings.Cut(it.Reference, "/"); it.Document != doc {
			t.Errorf("row %s names document %q", it.Reference, it.Document)
		}
	}
	var c struct {
		Counts struct{ Created, Unchanged int } `json:"counts"`
	}
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, &c); d != nil || c.Counts.Created != 1 || c.Counts.Unchanged != 5 {
		t.Fatalf("import_commit: %+v, %v", c.Counts, d)
	}
	byRef = e.issuesByRef()
	if got, want := byRef["release/s-1"].Parent, byRef["app/e-2"].Key; got == "" || got != want {
		t.Errorf("release/s-1 has parent %q; want app/e-2 (%s)", got, want)
	}

	// The next preview (CLI, --json) is unchanged throughout.
	w1 := e.writes()
	var again dirPreview
	if r := e.dwireJSON(&again, "import", "plans", "--dry-run"); r.code != 0 || again.Counts.Unchanged != 6 || again.Counts.Create != 0 || len(again.Documents) != 3 {
		t.Errorf("again: %+v %s", again.Counts, r)
	}
	if e.writes() != w1 {
		t.Errorf("a directory preview made %d writes", e.writes()-w1)
	}
}

// TestDirectoryRefusesACycleAcrossDocuments: two documents of a directory
// depend on each other's stories in a circle (each alone is fine). The
// import preview refuses the set, naming the cycle, and writes nothing;
// committed, those items would block each other for ever.
func TestDirectoryRefusesACycleAcrossDocuments(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.write("plans/web.md", "---\nid: web\n---\n## Story s-1: Checkout page\nDepends on: api/s-1\n")
	e.write("plans/api.md", "---\nid: api\n---\n## Story s-1: Payment endpoint\nDepends on: web/s-1\n")
	w0 := e.writes()
	r := e.dwire("import", "plans", "--dry-run")
	if r.code != 1 || !strings.Contains(r.stderr, "VALIDATION_FAILED") || !strings.Contains(r.stderr, "dependency cycle across documents") || !strings.Contains(r.stderr, "api/s-1 → web/s-1 → api/s-1") {
		t.Errorf("a cycle across documents: %s", r)
	}
	if w := e.writes(); w != w0 {
		t.Errorf("the refused preview made %d writes", w-w0)
	}
}
