package plan

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A story's "Epic:" line (`epic:` key) may name an epic of another
// document by reference; one into its own document is the local id.
func TestEpicOfAnotherDocument(t *testing.T) {
	md := "---\nid: app\n---\n## Story s-1: One\nEpic: infra/e-1\n\n## Epic e-2: Two\n\n## Story s-2: Three\nEpic: app/e-2\n"
	doc, err := Parse("app.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if s := doc.Items[0]; s.Epic != "" || s.EpicRef != "infra/e-1" || s.EpicRefLine != 5 {
		t.Errorf("s-1: epic %q, ref %q, line %d", s.Epic, s.EpicRef, s.EpicRefLine)
	}
	if s := doc.Items[2]; s.Epic != "e-2" || s.EpicRef != "" {
		t.Errorf("s-2: epic %q, ref %q", s.Epic, s.EpicRef)
	}
	y := "id: rel\nstories:\n  - id: s-1\n    title: Ship\n    epic: app/e-2\n"
	doc, err = Parse("rel.yaml", []byte(y))
	if err != nil || doc.Items[0].EpicRef != "app/e-2" || doc.Items[0].EpicRefLine != 5 {
		t.Fatalf("yaml: %+v, %v", doc, err)
	}
	for _, c := range []struct{ doc, want string }{
		{"---\nid: app\n---\n## Story s-1: One\nEpic: bad!/e-1\n", `names epic "bad!/e-1" at line 5, which is not a valid reference`},
		{"---\nid: app\n---\n## Epic e-1: E\n\n### Story s-1: One\nEpic: infra/e-1\n", "sits under epic e-1 (line 4) but its Epic: line names infra/e-1, an epic of another document"},
	} {
		_, err := Parse("app.md", []byte(c.doc))
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Error(), c.want) && !strings.Contains(problemsOf(pe), c.want) {
			t.Errorf("%q: %v; want %q", c.doc, err, c.want)
		}
	}
}

func problemsOf(pe *Error) string {
	var b strings.Builder
	for _, p := range pe.Problems {
		b.WriteString(p.Message + "\n")
	}
	return b.String()
}

// A file without items and without an id is not a plan (NotPlan); one
// with an id, or with an epics/stories key, is an empty plan.
func TestNotPlan(t *testing.T) {
	notPlans := map[string]string{"README.md": "# Plans\n\nOne per team.\n", "ci.yml": "on: push\njobs: {}\n"}
	emptyPlans := map[string]string{"empty.md": "---\nid: x\n---\n# Nothing yet\n", "empty.yaml": "epics: []\n"}
	check := func(name, data string, notPlan bool) {
		_, err := Parse(name, []byte(data))
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != CodeValidationFailed || pe.NotPlan != notPlan {
			t.Errorf("%s: %v; want VALIDATION_FAILED, not a plan %v", name, err, notPlan)
		}
	}
	for name, data := range notPlans {
		check(name, data, true)
	}
	for name, data := range emptyPlans {
		check(name, data, false)
	}
}

// ReadDir reads every planning document of a tree in path order and lists
// what it skips; ParseSet skips files that are not plans.
func TestReadDirAndParseSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	files := map[string]string{
		"b.md":          "---\nid: b\n---\n## Epic e-1: B\n",
		"a/c.yaml":      "id: c\nstories:\n  - id: s-1\n    title: C\n    epic: b/e-1\n",
		"a/notes.txt":   "x",
		".git/HEAD.md":  "x",
		"README.md":     "# About\n",
		"z.md":          "---\nid: z\n---\n## Story s-1: Z\nEpic: elsewhere/e-4\n",
		"a/.draft.yaml": "id: d\n",
	}
	for _, sub := range []string{"a", ".git"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "b.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	got, skipped, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "plans/README.md plans/a/c.yaml plans/b.md plans/z.md" {
		t.Errorf("files %q", names)
	}
	var sk []string
	for _, s := range skipped {
		sk = append(sk, s.Name+" "+s.Why)
	}
	if want := "plans/.git/ hidden|plans/a/.draft.yaml hidden|plans/a/notes.txt " + SkipExtension + "|plans/link.md " + SkipSymlink; strings.Join(sk, "|") != want {
		t.Errorf("skipped %q\nwant %q", strings.Join(sk, "|"), want)
	}
	set, err := Options{}.ParseSet(got, skipped...)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Documents) != 3 || set.Documents[0].ID != "c" || len(set.Skipped) != 5 || set.Skipped[4].Name != "plans/README.md" {
		t.Errorf("set %+v", set)
	}
	if len(set.External) != 1 || set.External[0] != (ExternalEpic{Reference: "elsewhere/e-4", File: "plans/z.md", Document: "z", Item: "s-1", Line: 5}) {
		t.Errorf("external %+v", set.External)
	}
}

// Two documents of a set adopting one issue are refused, naming both.
func TestSetAdoptsAnIssueOnce(t *testing.T) {
	a := SetFile{Name: "plans/a.md", Data: []byte("---\nid: a\n---\n## Story s-1: One\nKey: DEMO-5\n")}
	b := SetFile{Name: "plans/b.md", Data: []byte("---\nid: b\n---\n## Story s-2: Two\nKey: DEMO-5\n")}
	_, err := Options{}.ParseSet([]SetFile{a, b})
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeValidationFailed || len(pe.Problems) != 1 {
		t.Fatalf("%v", err)
	}
	if p := pe.Problems[0]; p.File != "plans/b.md" || p.Item != "s-2" || p.Line != 5 || !strings.Contains(p.Message, "Story s-2 adopts DEMO-5 (Key: line 5), which Story s-1 in plans/a.md adopts too (line 5)") {
		t.Errorf("problem %+v", p)
	}
}

// A dependency cycle that runs across documents (each document alone has
// none) is refused, named once, at the first item's dependency line; a
// chain across documents is not a cycle.
func TestSetRefusesACycleAcrossDocuments(t *testing.T) {
	files := []SetFile{
		{Name: "plans/a.md", Data: []byte("---\nid: a\n---\n## Story s-1: A1\nDepends on: b/s-1\nBlocks: s-2\n\n## Story s-2: A2\n")},
		{Name: "plans/b.md", Data: []byte("---\nid: b\n---\n## Story s-1: B1\nDepends on: c/s-1\n")},
		{Name: "plans/c.md", Data: []byte("---\nid: c\n---\n## Story s-1: C1\nDepends on: a/s-2\n")},
	}
	if _, err := (Options{}).ParseSet(files[:2]); err != nil {
		t.Fatalf("a chain across documents: %v", err)
	}
	_, err := Options{}.ParseSet(files)
	var pe *Error
	if !errors.As(err, &pe) || len(pe.Problems) != 1 {
		t.Fatalf("a cycle across documents: %v", err)
	}
	p := pe.Problems[0]
	if p.File != "plans/a.md" || p.Item != "s-1" || p.Line != 5 || !strings.Contains(p.Message, "dependency cycle across documents: a/s-1 → b/s-1 → c/s-1 → a/s-2 → a/s-1") {
		t.Errorf("the cycle's problem: %+v", p)
	}
}

// ParseChecked returns, with the problems, the items that can still be
// checked: an item with a bad or taken id is left out, and so is what
// names it (a story's epic, a sub-task, a dependency); the others keep
// their fields. A set returns such documents too.
func TestParseCheckedKeepsWhatParsed(t *testing.T) {
	src := "---\nid: shop\n---\n## Epic e 1: Bad id\n\n### Story s-1: Pay\nPriority: Hihg\nDepends on: s-2\n\n#### Sub-task t-1: Card\n\n## Story s-2: Twice\n\n## Story s-2: Twice again\n\n## Story s-3:\nDepends on: s-1\n"
	doc, err := Options{}.ParseChecked("shop.md", []byte(src))
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeValidationFailed {
		t.Fatalf("err = %v; want VALIDATION_FAILED", err)
	}
	if doc == nil {
		t.Fatal("no document to check further")
	}
	var ids []string
	for _, it := range doc.Items {
		ids = append(ids, it.ID)
	}
	if strings.Join(ids, ",") != "s-1,s-3" {
		t.Fatalf("items %v; want s-1,s-3 (the bad id and the taken one left out)", ids)
	}
	s1 := doc.Items[0]
	if s1.Fields.Priority.Value != "Hihg" || len(s1.DependsOn) != 0 {
		t.Errorf("s-1: priority %q, depends on %v; want Hihg and nothing (s-2 is left out)", s1.Fields.Priority.Value, s1.DependsOn)
	}
	if len(doc.Subtasks) != 1 || len(doc.Items[1].DependsOn) != 1 {
		t.Errorf("sub-tasks %v, s-3 depends on %v; want t-1 and s-1", doc.Subtasks, doc.Items[1].DependsOn)
	}
	if d, err := Parse("shop.md", []byte(src)); d != nil || err == nil {
		t.Errorf("Parse returned a document with its problems")
	}
	set, err := Options{}.ParseSet([]SetFile{{Name: "shop.md", Data: []byte(src)}, {Name: "ops.md", Data: []byte("---\nid: ops\n---\n## Story s-1: Deploy\nEpic: shop/e-7\n")}})
	if err == nil || set == nil || len(set.Documents) != 2 {
		t.Fatalf("ParseSet: %v, %+v; want an error and both documents", err, set)
	}
	if !errors.As(err, &pe) || !slices.ContainsFunc(pe.Problems, func(p Problem) bool { return p.File == "ops.md" && strings.Contains(p.Message, "shop/e-7") }) {
		t.Errorf("the epic reference into the document with problems is not checked: %v", err)
	}
}
