package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// bigPlan is a document of epics×stories items (plus the epics).
func bigPlan(id string, epics, stories int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s\n---\n# Big\n\n", id)
	n := 0
	for e := 1; e <= epics; e++ {
		fmt.Fprintf(&b, "## Epic e-%d: Epic %d\n\n", e, e)
		for s := 0; s < stories; s++ {
			n++
			fmt.Fprintf(&b, "### Story s-%d: Story %d\n\n", n, n)
		}
	}
	return b.String()
}

// TestPreviewRowsAreBounded: a preview of many items carries MaxRows rows,
// rows_truncated: true, the whole plan's counts and rows_total; changed
// rows come before unchanged ones; the commit still executes every item.
func TestPreviewRowsAreBounded(t *testing.T) {
	items := make([]service.PlanItem, 0, 1000)
	for i := 0; i < 1000; i++ {
		a := core.ActionUnchanged
		if i%100 == 99 {
			a = core.ActionUpdate // 10 updates, late in the document
		}
		items = append(items, service.PlanItem{Reference: core.Reference(fmt.Sprintf("big/s-%d", i)), Kind: core.KindStory, Title: "T", Action: a, Key: fmt.Sprintf("DEMO-%d", i+1)})
	}
	dir := t.TempDir()
	writeFile(t, dir, "p.md", "# P\n")
	svc := &fakeService{importPreview: func(context.Context, service.ImportPreviewInput) (service.ImportPreviewResult, error) {
		r := sampleImportPreview()
		r.Items, r.Counts = items, service.Counts{Update: 10, Unchanged: 990}
		return r, nil
	}}
	c := connect(t, svc, Options{Workspace: dir}, nil, "")
	m := c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.md"})
	rows := m["items"].([]any)
	if len(rows) != MaxRows || m["rows_truncated"] != true || m["rows_total"] != 1000.0 {
		t.Fatalf("rows %d, rows_truncated %v, rows_total %v", len(rows), m["rows_truncated"], m["rows_total"])
	}
	if cnt := m["counts"].(map[string]any); cnt["unchanged"] != 990.0 || cnt["update"] != 10.0 {
		t.Errorf("counts are not the whole plan's: %v", cnt)
	}
	updates, last := 0, -1
	for _, r := range rows {
		row := r.(map[string]any)
		if row["action"] == "update" {
			updates++
		}
		var i int
		fmt.Sscanf(row["reference"].(string), "big/s-%d", &i)
		if i <= last {
			t.Fatalf("rows are not in document order: %d after %d", i, last)
		}
		last = i
	}
	if updates != 10 {
		t.Errorf("%d of the 10 updates shown; changes must come first", updates)
	}

	// A small plan is shown whole.
	svc.importPreview = nil
	m = c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.md"})
	if len(m["items"].([]any)) != 4 || m["rows_truncated"] != false || m["rows_total"] != 4.0 {
		t.Errorf("small plan: %v", m)
	}
}

// TestPreviewStructureIsBounded: a plan of 9,945 dependencies carries
// MaxRows of its structure changes, structure_truncated and the whole
// number in structure_total (it was a 2.4 MB answer); a small one is whole.
func TestPreviewStructureIsBounded(t *testing.T) {
	const n = 9945
	structure := make([]service.StructureChange, n)
	for i := range structure {
		structure[i] = service.StructureChange{Action: "link", Item: fmt.Sprintf("s-%d", i+2), Message: fmt.Sprintf("s-%d depends on s-%d: link to add", i+2, i+1)}
	}
	dir := t.TempDir()
	writeFile(t, dir, "p.md", "# P\n")
	svc := &fakeService{importPreview: func(context.Context, service.ImportPreviewInput) (service.ImportPreviewResult, error) {
		r := sampleImportPreview()
		r.Structure = structure
		return r, nil
	}}
	c := connect(t, svc, Options{Workspace: dir}, nil, "")
	m := c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.md"})
	got, _ := m["structure"].([]any)
	if len(got) != MaxRows || m["structure_truncated"] != true || m["structure_total"] != float64(n) {
		t.Fatalf("structure %d, structure_truncated %v, structure_total %v; want %d of %d, truncated", len(got), m["structure_truncated"], m["structure_total"], MaxRows, n)
	}
	if first := got[0].(map[string]any); first["item"] != "s-2" {
		t.Errorf("the first change shown is %v; want the plan's first", first)
	}
	structure = structure[:3]
	m = c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.md"})
	if got, _ := m["structure"].([]any); len(got) != 3 || m["structure_truncated"] != false || m["structure_total"] != 3.0 {
		t.Errorf("small structure: %d, %v, %v", len(got), m["structure_truncated"], m["structure_total"])
	}
}

func TestEpicChildrenAreBounded(t *testing.T) {
	svc := &fakeService{get: func(context.Context, service.GetInput) (service.GetResult, error) {
		v := sampleView()
		v.Kind, v.Epic = core.KindEpic, nil
		for i := 0; i < 5000; i++ {
			v.Children = append(v.Children, service.ItemRef{Key: fmt.Sprintf("DEMO-%d", i+10), Title: "Child"})
		}
		return service.GetResult{ResultType: service.ResultPreview, RunID: "run-g", Item: v}, nil
	}}
	c := connect(t, svc, Options{}, nil, "")
	m := c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "DEMO-1"})
	kids := m["item"].(map[string]any)["children"].([]any)
	if len(kids) != MaxRows || m["children_truncated"] != true || m["children_total"] != 5000.0 {
		t.Fatalf("children %d, truncated %v, total %v", len(kids), m["children_truncated"], m["children_total"])
	}
	if kids[0].(map[string]any)["key"] != "DEMO-10" {
		t.Errorf("first child %v", kids[0])
	}
}

// TestHundredThousandItemPreviewResultSize previews a 100,000-item
// document through the real service and measures the JSON-RPC result the
// agent receives (it was one 20.5 MB line): it must stay under 1 MB, and
// the stored plan must still hold every item.
func TestHundredThousandItemPreviewResultSize(t *testing.T) {
	if testing.Short() {
		t.Skip("previews 100,000 items")
	}
	ws := t.TempDir()
	writeFile(t, ws, "big.md", bigPlan("big", 1000, 99)) // 1,000 epics + 99,000 stories
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: fakeprovider.New(fakeprovider.Options{}), Store: memstore.New(memstore.Options{})})
	c := connect(t, svc, Options{Workspace: ws}, nil, "")
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolImportPreview, Arguments: map[string]any{"path": "big.md"}})
	if err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "result": res})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MCP result of a 100,000-item import_preview: %d bytes (%.1f KB)", len(line), float64(len(line))/1024)
	if len(line) >= 1<<20 {
		t.Errorf("result is %d bytes, want < 1 MB", len(line))
	}
	var m struct {
		Handle string         `json:"preview_handle"`
		Counts map[string]int `json:"counts"`
		Total  int            `json:"rows_total"`
		Items  []any          `json:"items"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Counts["create"] != 100000 || m.Total != 100000 || len(m.Items) != MaxRows {
		t.Errorf("counts %v, rows_total %d, rows %d", m.Counts, m.Total, len(m.Items))
	}
	info, err := svc.StoredPreview(context.Background(), m.Handle)
	if err != nil || info.Import == nil || len(info.Import.Items) != 100000 {
		t.Fatalf("stored plan: %v (%v)", info.Import != nil, err)
	}
}

// previewOf calls import_preview through the server, whose service
// previews items with counts; the result, the service and the connection.
func previewOf(t *testing.T, items []service.PlanItem, counts service.Counts) (map[string]any, *fakeService, *conn) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "p.md", "# P\n")
	svc := &fakeService{importPreview: func(context.Context, service.ImportPreviewInput) (service.ImportPreviewResult, error) {
		r := sampleImportPreview()
		r.Items, r.Counts = items, counts
		return r, nil
	}}
	c := connect(t, svc, Options{Workspace: dir}, nil, "")
	return c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.md"}), svc, c
}

// TestPreviewChangesAreBounded: the rows' changes are carried as data
// (field, from, to, diff) while they fit in MaxChangeBytes; the rows past
// it keep changed_fields and changes_omitted counts them.
func TestPreviewChangesAreBounded(t *testing.T) {
	long := strings.Repeat("d", service.MaxChangeValue)
	items := make([]service.PlanItem, 0, 150)
	for i := range 150 {
		items = append(items, service.PlanItem{Reference: core.Reference(fmt.Sprintf("big/s-%d", i)), Kind: core.KindStory, Title: "T", Action: core.ActionUpdate,
			Key: fmt.Sprintf("DEMO-%d", i+1), ChangedFields: []string{"description"},
			Changes: []service.FieldChange{{Field: "description", From: long, To: long + "x", Diff: strings.Repeat("-"+long+"\n", 3)}}})
	}
	m, svc, c := previewOf(t, items, service.Counts{Update: 150})
	rows := m["items"].([]any)
	with, without := 0, false
	for i, r := range rows {
		row := r.(map[string]any)
		ch, ok := row["changes"].([]any)
		if ok {
			with++
			if c := ch[0].(map[string]any); c["field"] != "description" || c["from"] != long || !strings.HasPrefix(c["diff"].(string), "-ddd") {
				t.Fatalf("row %d change %v", i, c)
			}
		}
		if ok && without {
			t.Fatalf("row %d has changes after a row without", i)
		}
		without = without || !ok
		if row["changed_fields"] == nil {
			t.Fatalf("row %d lost changed_fields", i)
		}
	}
	per := 11 + 2*service.MaxChangeValue + 1 + 3*(service.MaxChangeValue+2)
	if with != MaxChangeBytes/per || m["changes_omitted"] != float64(150-with) {
		t.Errorf("%d rows with changes (want %d), changes_omitted %v", with, MaxChangeBytes/per, m["changes_omitted"])
	}
	if svc.importPreview = nil; c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.md"})["changes_omitted"] != nil {
		t.Error("changes_omitted shown for a small plan")
	}
}

// Rows of every action and every kind pass the advertised output schema:
// a preview with removed and close rows, and one with a sub-task (issue
// 17), used to be refused as not matching it.
func TestPreviewOfEveryActionMatchesTheSchema(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "p.md", "# P\n")
	svc := &fakeService{importPreview: func(context.Context, service.ImportPreviewInput) (service.ImportPreviewResult, error) {
		r := sampleImportPreview()
		r.Items = nil
		for _, a := range []core.Action{core.ActionCreate, core.ActionUpdate, core.ActionUnchanged, core.ActionDrift, service.ActionRemoved, service.ActionClose} {
			r.Items = append(r.Items, service.PlanItem{Reference: core.Reference("p/" + string(a)), Kind: core.KindStory, Title: "T", Action: a, Status: core.StatusTodo})
		}
		for _, k := range []core.Kind{core.KindEpic, core.KindSubtask} {
			r.Items = append(r.Items, service.PlanItem{Reference: core.Reference("p/" + string(k)), Kind: k, Title: "T", Action: core.ActionCreate, Status: core.StatusTodo})
		}
		r.Structure = []service.StructureChange{{Action: string(service.ActionLink), Item: "subtask", Message: "subtask depends on create: link to add"}}
		return r, nil
	}}
	c := connect(t, svc, Options{Workspace: dir}, nil, "")
	if rows := c.mustCall(t, ToolImportPreview, map[string]any{"path": "p.md"})["items"].([]any); len(rows) != 8 {
		t.Fatalf("%d rows", len(rows))
	}
}

// A conflict's change carries what each side changed (tracker, document:
// from the base) in the result, and its sides count towards
// MaxChangeBytes like its own values.
func TestPreviewConflictSidesAreCarriedAndCounted(t *testing.T) {
	long := strings.Repeat("t", service.MaxChangeValue)
	items := make([]service.PlanItem, 0, 150)
	for i := range 150 {
		items = append(items, service.PlanItem{Reference: core.Reference(fmt.Sprintf("big/s-%d", i)), Kind: core.KindStory, Title: "T", Action: core.ActionDrift,
			Key: fmt.Sprintf("DEMO-%d", i+1),
			Changes: []service.FieldChange{{Field: "title", From: long, To: long, Conflict: true, Base: long,
				Tracker: &service.FieldSide{To: long}, Document: &service.FieldSide{To: long}}}})
	}
	m, _, _ := previewOf(t, items, service.Counts{Drift: 150})
	with := 0
	for i, r := range m["items"].([]any) {
		ch, ok := r.(map[string]any)["changes"].([]any)
		if !ok {
			continue
		}
		with++
		c := ch[0].(map[string]any)
		tr, _ := c["tracker"].(map[string]any)
		doc, _ := c["document"].(map[string]any)
		if c["conflict"] != true || c["base"] != long || tr["to"] != long || doc["to"] != long {
			t.Fatalf("row %d change %v", i, c)
		}
	}
	per := 5 + 5*service.MaxChangeValue
	if with != MaxChangeBytes/per || m["changes_omitted"] != float64(150-with) {
		t.Errorf("%d rows with changes (want %d), changes_omitted %v", with, MaxChangeBytes/per, m["changes_omitted"])
	}
}

// cutAtLineEnd keeps whole lines within the bound, and says when it cut.
func TestCutAtLineEnd(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
		cut  bool
	}{
		{"a\nb\n", 4, "a\nb\n", false},
		{"a\nb\nc\n", 5, "a\nb\n", true},
		{"a\nbc\n", 3, "a\n", true},
		{"abc\n", 2, "", true},
	} {
		if got, cut := cutAtLineEnd(c.s, c.max); got != c.want || cut != c.cut {
			t.Errorf("cutAtLineEnd(%q, %d) = %q, %v; want %q, %v", c.s, c.max, got, cut, c.want, c.cut)
		}
	}
}
