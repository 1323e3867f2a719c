package dwire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// lastJSONLine decodes the last line of s (the --json error payload).
func lastJSONLine(t *testing.T, s string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Fatalf("last line is not JSON: %v\n%s", err, s)
	}
	return m
}

// handleDetail returns the preview_handle detail of an error payload.
func handleDetail(m map[string]any) string {
	ds, _ := m["details"].([]any)
	for _, d := range ds {
		if dm, ok := d.(map[string]any); ok && dm["field"] == "preview_handle" {
			s, _ := dm["message"].(string)
			return s
		}
	}
	return ""
}

// Issue 19 #13: one shape per object, a doctor result of its own kind, the
// handle in CONFIRMATION_REQUIRED's details for every command, and
// progress --dry-run.
func TestJSONShapes(t *testing.T) {
	h := newHarness(t)

	// import without a terminal: the handle is in the error's details.
	r := h.run("", false, "import", "plan.md", "--json")
	r.expect(t, 1)
	e := lastJSONLine(t, r.errOut)
	imp := handleDetail(e)
	if e["code"] != "CONFIRMATION_REQUIRED" || !strings.HasPrefix(imp, "imp_") {
		t.Fatalf("import --json without a TTY: %v", e)
	}

	// review --json prints the preview object itself, like import --json.
	r = h.run("\n", true, "review", imp, "--json")
	r.expect(t, 0)
	var top map[string]any
	if err := json.Unmarshal([]byte(r.out), &top); err != nil {
		t.Fatalf("review --json: %v\n%s", err, r.out)
	}
	if top["result_type"] != "preview" || top["preview_handle"] != imp || top["import"] != nil || top["kind"] != nil {
		t.Fatalf("review --json is not the preview object: %v", top)
	}
	var p service.ImportPreviewResult
	if err := json.Unmarshal([]byte(r.out), &p); err != nil || p.Counts.Create != 5 {
		t.Fatalf("review --json = %+v %v", p, err)
	}
	// review without a terminal: the handle in the details too.
	r = h.run("", false, "review", imp, "--json")
	r.expect(t, 1)
	if e := lastJSONLine(t, r.errOut); handleDetail(e) != imp {
		t.Fatalf("review --json without a TTY: %v", e)
	}

	// doctor --json is a result of its own kind.
	r = h.run("", false, "doctor", "--json")
	r.expect(t, 0)
	var d map[string]any
	if err := json.Unmarshal([]byte(r.out), &d); err != nil || d["result_type"] != "doctor" {
		t.Fatalf("doctor --json = %v %v", d, err)
	}

	h.run("y\n", true, "import", "plan.md").expect(t, 0)
	before := h.prov.Writes()
	// progress --json without a terminal: the handle is in the details.
	r = h.run("", false, "progress", "checkout-v2/s-1", "--status", "done", "--json")
	r.expect(t, 1)
	e = lastJSONLine(t, r.errOut)
	if prg := handleDetail(e); e["code"] != "CONFIRMATION_REQUIRED" || !strings.HasPrefix(prg, "prg_") {
		t.Fatalf("progress --json without a TTY: %v", e)
	}
	// progress --dry-run --json: the preview object, nothing written, no prompt.
	r = h.run("y\n", true, "progress", "checkout-v2/s-1", "--status", "done", "--dry-run", "--json")
	r.expect(t, 0)
	var pp service.ProgressPreviewResult
	if err := json.Unmarshal([]byte(r.out), &pp); err != nil || pp.ResultType != "preview" || !strings.HasPrefix(pp.PreviewHandle, "prg_") || pp.TargetStatus != core.StatusDone {
		t.Fatalf("progress --dry-run --json = %+v %v\n%s", pp, err, r.out)
	}
	if strings.Contains(r.errOut, "[y/N]") {
		t.Fatal("a dry run asked to confirm")
	}
	r = h.run("y\n", true, "progress", "checkout-v2/s-1", "--status", "done", "--dry-run")
	r.expect(t, 0, "Progress preview of", "todo → done", "Dry run: nothing was written.")
	if h.prov.Writes() != before {
		t.Fatalf("%d writes from previews", h.prov.Writes()-before)
	}
	// The dry run's handle is committed by a person with dwire review.
	h.run("y\n", true, "review", pp.PreviewHandle).expect(t, 0, "Committed: ", "moved to done")
}
