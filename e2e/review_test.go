package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReviewListsWhatAPersonWaitsOn: through the real binary, dwire
// review without a handle lists only previews a person is waiting on — an
// agent's import preview and pull preview (pul_ handle, "pull into") —
// never a dry run, a preview declined at the prompt, a committed one or
// one that writes nothing; a preview whose items changed in Jira is
// refused PREVIEW_STALE before the question is asked, writes nothing, and
// leaves the list.
func TestReviewListsWhatAPersonWaitsOn(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	listed := func() string {
		t.Helper()
		r := e.dwire("review")
		if r.code != 0 {
			t.Fatalf("dwire review: %s", r)
		}
		return r.stdout
	}
	handles := regexp.MustCompile(`(?m)^((imp|prg|pul)_[0-9a-f]+)  `)
	shop := planSpec{id: "review-shop", epics: 1, stories: 2}
	e.write("shop.md", shop.markdown())
	if r := e.dwire("import", "shop.md", "--dry-run"); r.code != 0 {
		t.Fatalf("dry run: %s", r)
	}
	if r := e.dwirePTY("n\r", "import", "shop.md"); r.code != 0 {
		t.Fatalf("import answered no: %s", r)
	}
	if l := listed(); handles.MatchString(l) {
		t.Errorf("a dry run or a declined preview is listed:\n%s", l)
	}
	e.importConfirmed("shop.md")
	if r := e.dwire("import", "shop.md"); r.code != 0 || !strings.Contains(r.stderr, "Nothing to write") {
		t.Fatalf("unchanged import: %s", r)
	}

	// An agent previews another document, and a pull of shop after a
	// person renamed a story in Jira.
	cs, _ := e.mcp()
	other := planSpec{id: "review-other", epics: 1, stories: 1}
	agent := e.scPreview(cs, e.write("other.md", other.markdown()))
	s1 := e.issuesByRef()["review-shop/s-1"].Key
	if err := e.jira.EditAsPerson(ctx, s1, "Renamed by a person in Jira"); err != nil {
		t.Fatal(err)
	}
	var pull struct {
		PreviewHandle string `json:"preview_handle"`
	}
	if d := e.call(cs, "pull_preview", map[string]any{"path": "shop.md"}, &pull); d != nil || !strings.HasPrefix(pull.PreviewHandle, "pul_") {
		t.Fatalf("pull_preview: %v, handle %q; want a pul_ handle", d, pull.PreviewHandle)
	}
	l := listed()
	var got []string
	for _, m := range handles.FindAllStringSubmatch(l, -1) {
		got = append(got, m[1])
	}
	slices.Sort(got) // made within a second: the store keeps seconds
	if !slices.Equal(got, []string{agent.PreviewHandle, pull.PreviewHandle}) || !strings.Contains(l, "pull into review-shop") || !strings.Contains(l, "import of review-other") {
		t.Fatalf("dwire review lists %v; want the agent's import %s and pull %s:\n%s", got, agent.PreviewHandle, pull.PreviewHandle, l)
	}

	// A person imports the document (superseding the agent's preview);
	// the agent previews it again and that preview goes stale (its story
	// renamed in Jira): refused before the question, nothing written, and
	// it leaves the list.
	other2 := planSpec{id: "review-other", epics: 1, stories: 1, titles: map[string]string{"s-1": "Story 1, changed"}}
	e.write("other.md", other2.markdown())
	e.importConfirmed("other.md")
	stale := e.scPreview(cs, e.write("other.md", planSpec{id: "review-other", epics: 1, stories: 1}.markdown()))
	if err := e.jira.EditAsPerson(ctx, e.issuesByRef()["review-other/s-1"].Key, "Story renamed in Jira"); err != nil {
		t.Fatal(err)
	}
	w := e.writes()
	r := e.dwirePTY("y\r", "review", stale.PreviewHandle)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "PREVIEW_STALE") || strings.Contains(r.stdout+r.stderr, "[y/N]") {
		t.Errorf("dwire review of a stale preview: %s; want PREVIEW_STALE before any question", r)
	}
	if e.writes() != w {
		t.Errorf("the stale review wrote %d times", e.writes()-w)
	}
	if l := listed(); strings.Contains(l, stale.PreviewHandle) || strings.Contains(l, agent.PreviewHandle) || !strings.Contains(l, pull.PreviewHandle) {
		t.Errorf("after the stale review the list is:\n%s\nwant the pull only (%s superseded, %s refused as stale)", l, agent.PreviewHandle, stale.PreviewHandle)
	}
}

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
