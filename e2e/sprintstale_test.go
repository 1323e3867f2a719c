package e2e

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestSprintClosedAfterThePreviewIsStale: a preview plans a new story
// into DEMO Sprint 2; a person closes that sprint before the commit. The
// commit (dwire review of the handle) refuses PREVIEW_STALE naming the
// sprint, before its first write: nothing is created, nothing half-done.
func TestSprintClosedAfterThePreviewIsStale(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.write("plan.md", "---\nid: shop\n---\n## Story s-1: Pay\nSprint: DEMO Sprint 2\n\nA guest pays.\n")
	var pv adoptPreview
	if r := e.dwireJSON(&pv, "import", "plan.md", "--dry-run"); r.code != 0 || pv.Counts.Create != 1 || pv.PreviewHandle == "" {
		t.Fatalf("preview: %+v %s", pv, r)
	}
	// DEMO Sprint 2 is the fake's second sprint (ids count from 1).
	resp, err := http.Post(e.jira.URL+"/_mockjira/sprints/state", "application/json", bytes.NewReader([]byte(`{"sprint": 2, "state": "closed"}`)))
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("close the sprint: %v %v", resp, err)
	}
	resp.Body.Close()
	w0 := e.writes()
	r := e.dwirePTY("y\r", "review", pv.PreviewHandle)
	if r.code == 0 || r.code == 4 || !strings.Contains(r.stdout+r.stderr, "PREVIEW_STALE") || !strings.Contains(r.stdout+r.stderr, "DEMO Sprint 2") {
		t.Errorf("commit after the sprint closed: %s", r)
	}
	if w := e.writes(); w != w0 {
		t.Errorf("the refused commit made %d writes", w-w0)
	}
	if n := len(e.issues()); n != 0 {
		t.Errorf("%d issues were created", n)
	}
}
