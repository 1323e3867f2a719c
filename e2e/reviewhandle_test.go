package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestReviewOfAnAgentsPreviewSaysWhoAndWhatBecameOfIt, through the real
// binary and `dwire mcp`:
//   - a preview the person declined through MCP elicitation leaves the
//     `dwire review` list (nobody waits on it);
//   - `dwire review <handle>` of an agent's preview says who made it (the
//     agent's MCP client) and when, and each review is its own run (its
//     own run id, not the preview's);
//   - `dwire review` of a committed handle says it was already committed,
//     when and what that commit did (its result replayed under its own
//     key: result_type committed, exit 0), never the old plan, and writes
//     nothing.
func TestReviewOfAnAgentsPreviewSaysWhoAndWhatBecameOfIt(t *testing.T) {
	e := newEnv(t, envOptions{})
	runIDs := regexp.MustCompile(`run_[0-9a-f]+`)

	// Declined through elicitation: no longer listed.
	cs, _ := e.mcpAsking("decline")
	declined := e.scPreview(cs, e.write("declined.md", planSpec{id: "review-declined", epics: 1, stories: 1}.markdown()))
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": declined.PreviewHandle, "confirmed": true}, nil); d["code"] != "CONFIRMATION_REQUIRED" {
		t.Fatalf("a declined commit: %v", d)
	}
	if r := e.dwire("review"); r.code != 0 || strings.Contains(r.stdout, declined.PreviewHandle) {
		t.Errorf("dwire review still lists the preview declined through elicitation (%s):\n%s", declined.PreviewHandle, r)
	}

	// An agent's preview reviewed twice without a terminal: who made it,
	// when; each run its own id.
	var pv struct {
		PreviewHandle string `json:"preview_handle"`
		RunID         string `json:"run_id"`
	}
	if d := e.call(cs, "import_preview", map[string]any{"path": e.write("shop.md", planSpec{id: "review-handle", epics: 1, stories: 2}.markdown())}, &pv); d != nil {
		t.Fatalf("import_preview: %v", d)
	}
	seen := map[string]bool{}
	for i := range 2 {
		r := e.dwire("review", pv.PreviewHandle)
		if r.code != 1 || !strings.Contains(r.stderr, "CONFIRMATION_REQUIRED") {
			t.Fatalf("review %d without a terminal: %s", i+1, r)
		}
		if want := "made by agent dwire-e2e-asking 1.0.0"; !strings.Contains(oneLine(r.stdout), want) || !strings.Contains(oneLine(r.stdout), "via MCP on ") || !strings.Contains(oneLine(r.stdout), " UTC.") {
			t.Errorf("review %d does not say who made the preview and when (%q … via MCP on … UTC):\n%s", i+1, want, r)
		}
		ids := runIDs.FindAllString(r.stderr, -1)
		if len(ids) == 0 {
			t.Fatalf("review %d reports no run id:\n%s", i+1, r)
		}
		if id := ids[len(ids)-1]; seen[id] || id == pv.RunID {
			t.Errorf("review %d reports run id %s, already reported before (%v) or the preview's own (%s)", i+1, id, seen, pv.RunID)
		} else {
			seen[id] = true
		}
	}
	var shown struct {
		RunID string `json:"run_id"`
	}
	if r := e.dwire("review", pv.PreviewHandle, "--json"); r.code != 1 {
		t.Fatalf("review --json without a terminal: %s", r)
	} else if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &shown); err == nil && shown.RunID != "" && seen[shown.RunID] {
		t.Errorf("review --json reports run id %s of an earlier review", shown.RunID)
	}

	// Committed by a person; reviewed again: already committed, the
	// commit's result, nothing written.
	if r := e.dwirePTY("y\r", "review", pv.PreviewHandle); r.code != 0 || !strings.Contains(r.stdout, "Committed: 3 created") {
		t.Fatalf("review confirmed: %s", r)
	}
	w := e.writes()
	r := e.dwire("review", pv.PreviewHandle)
	if r.code != 0 || !strings.Contains(oneLine(r.stderr), "Skipped: preview "+pv.PreviewHandle+" was already committed on ") || !strings.Contains(r.stdout, "Committed: 3 created") {
		t.Errorf("review of a committed handle: %s; want it already committed, with what that commit did", r)
	}
	if strings.Contains(r.stdout, "create ") || strings.Contains(r.stdout+r.stderr, "Write to Jira") {
		t.Errorf("review of a committed handle shows the old plan:\n%s", r)
	}
	var res struct {
		ResultType string `json:"result_type"`
		Replayed   bool   `json:"replayed"`
		Counts     struct {
			Created int `json:"created"`
		} `json:"counts"`
	}
	if r := e.dwireJSON(&res, "review", pv.PreviewHandle); r.code != 0 || res.ResultType != "committed" || !res.Replayed || res.Counts.Created != 3 {
		t.Errorf("review --json of a committed handle: %+v; want result_type committed, replayed, 3 created:\n%s", res, r)
	}
	if e.writes() != w {
		t.Errorf("reviewing a committed handle wrote %d times", e.writes()-w)
	}
}
