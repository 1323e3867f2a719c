package e2e

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpAsking starts `dwire mcp` with a client that can be asked (form
// elicitation): answer answers each question, after it is kept.
func (e *env) mcpAsking(answer string) (*mcp.ClientSession, func() []string) {
	e.t.Helper()
	var mu sync.Mutex
	var asked []string
	cs, _ := e.mcpClient("dwire-e2e-asking", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			if answer == "accept" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
			}
			return &mcp.ElicitResult{Action: answer}, nil
		},
	})
	return cs, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

// oneLine is what a terminal showed with its line breaks (wrapping) and
// runs of spaces as single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestEveryDoorNamesEveryWrite: an import that adopts an issue a person
// made, creates two stories, links two dependencies, moves a story into a
// sprint and places the new stories in the backlog order. The agent's
// confirmation question (MCP elicitation), `dwire review` of the agent's
// preview and the prompt of `dwire import` each count every write of the
// stored plan by kind and name each one — the structure writes too — and
// the commit then writes exactly those.
func TestEveryDoorNamesEveryWrite(t *testing.T) {
	e := newEnv(t, envOptions{})
	pay := e.seedAsPerson("Story", "Pay (old name)", "")
	e.write("shop.md", "---\nid: shop\n---\n### Story s-1: Pay\nKey: "+pay+"\n\n### Story s-2: Save the address\nDepends on: s-1\nSprint: DEMO Sprint 2\n\n### Story s-3: Receipt\nBlocks: s-2\n")
	// The stored plan's writes, as each door must name them.
	counts := "8 writes: adopt 1 existing issue, create 2 items, add 2 dependency links, move 1 item into a sprint, place 2 items in the backlog order"
	structure := []string{
		"link       s-2 depends on s-1 (" + pay + "): s-2 is blocked by s-1",
		"link       s-2 depends on s-3: s-2 is blocked by s-3",
		"sprint     s-2 into sprint DEMO Sprint 2",
		"rank       s-2 after s-1 (" + pay + ") in the backlog order",
		"rank       s-3 after s-2 in the backlog order",
	}
	items := []string{
		`adopt story s-1 "Pay" (` + pay + `): its reference and the document's content are written to it`,
		`create story s-2 "Save the address"`,
		`create story s-3 "Receipt"`,
	}
	w0 := e.writes()

	// The agent: the question names every write; declined, nothing is written.
	cs, asked := e.mcpAsking("decline")
	var pv struct {
		PreviewHandle string `json:"preview_handle"`
	}
	if d := e.call(cs, "import_preview", map[string]any{"path": "shop.md"}, &pv); d != nil {
		t.Fatalf("import_preview: %v", d)
	}
	if d := e.call(cs, "import_commit", map[string]any{"preview_handle": pv.PreviewHandle, "confirmed": true}, nil); d["code"] != "CONFIRMATION_REQUIRED" {
		t.Fatalf("a declined commit: %v", d)
	}
	q := strings.Join(asked(), "\n")
	for _, want := range append([]string{counts}, items...) {
		if !strings.Contains(q, "\n- "+want) && !strings.Contains(q, want) {
			t.Errorf("the agent's question lacks %q:\n%s", want, q)
		}
	}
	for _, s := range structure {
		action, text, _ := strings.Cut(s, " ")
		if want := "\n- " + action + " " + strings.TrimSpace(text) + "\n"; !strings.Contains(q, want) {
			t.Errorf("the agent's question lacks %q:\n%s", strings.TrimSpace(want), q)
		}
	}

	// A person reviews the agent's preview: the preview names each
	// write, the question counts them; declined.
	doors := map[string]result{
		"dwire review": e.dwirePTY("n\r", "review", pv.PreviewHandle),
		"dwire import": e.dwirePTY("y\r", "import", "shop.md"),
	}
	for door, r := range doors {
		shown := strings.ReplaceAll(r.stdout, "\r\n", "\n")
		if !strings.Contains(oneLine(shown), "Write to Jira ("+counts+")? [y/N]") {
			t.Errorf("%s: the question does not count every write (%q):\n%s", door, counts, shown)
		}
		for _, s := range structure {
			if !strings.Contains(shown, "  "+s+"\n") {
				t.Errorf("%s: the preview does not name %q:\n%s", door, s, shown)
			}
		}
		for _, row := range []string{"adopt      " + pay + "  Story s-1: Pay", "create             Story s-2: Save the address", "create             Story s-3: Receipt"} {
			if !strings.Contains(shown, row) {
				t.Errorf("%s: the preview has no row %q:\n%s", door, row, shown)
			}
		}
	}
	if r := doors["dwire review"]; r.code != 0 || !strings.Contains(r.stdout, "Skipped: not confirmed") {
		t.Errorf("review declined: %s", r)
	}

	// The commit (dwire import, confirmed) writes what was named: the
	// counts it reports are the question's, and Jira holds each write.
	r := doors["dwire import"]
	if r.code != 0 {
		t.Fatalf("import: %s", r)
	}
	for _, want := range []string{"2 created", "1 adopted", "2 dependency links added", "1 item moved into a sprint", "2 items placed in the backlog order"} {
		if !strings.Contains(oneLine(r.stdout), want) {
			t.Errorf("the commit did not report %q:\n%s", want, r.stdout)
		}
	}
	byRef := e.issuesByRef()
	s1, s2, s3 := byRef["shop/s-1"], byRef["shop/s-2"], byRef["shop/s-3"]
	if s1.Key != pay || s1.Summary != "Pay" || s2.Key == "" || s3.Key == "" || len(byRef) != 3 {
		t.Fatalf("issues after the commit: %+v", byRef)
	}
	var shown struct {
		Item struct {
			Sprint    string `json:"sprint"`
			BlockedBy []struct {
				Key string `json:"key"`
			} `json:"blocked_by"`
		} `json:"item"`
	}
	if r := e.dwireJSON(&shown, "show", s2.Key); r.code != 0 {
		t.Fatalf("show: %s", r)
	}
	var blockers []string
	for _, b := range shown.Item.BlockedBy {
		blockers = append(blockers, b.Key)
	}
	slices.Sort(blockers)
	want := []string{s1.Key, s3.Key}
	slices.Sort(want)
	if !slices.Equal(blockers, want) || shown.Item.Sprint != "DEMO Sprint 2" {
		t.Errorf("%s: blocked by %v in sprint %q; want %v in DEMO Sprint 2", s2.Key, blockers, shown.Item.Sprint, want)
	}
	if e.writes() == w0 {
		t.Error("the commit wrote nothing")
	}
}
