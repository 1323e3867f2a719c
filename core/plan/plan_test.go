package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseMarkdownBasic(t *testing.T) {
	src := "---\nid: checkout-v2\n---\n# Checkout v2\n\n## Epic e-1: Guest checkout\nFree Markdown description.\n\n```\n## Story x: not a heading\n```\n\n### Story s-1: Pay without an account\nDescription.\n\nAcceptance criteria:\n- A guest can pay with a card\n- [ ] The order confirmation is e-mailed\n\n### Story s-2: Save address\nEpic: e-1\nDrift: take-document\n\n## Story s-3: Loose\n"
	got := mustParse(t, "plan.md", src)
	want := &Document{ID: "checkout-v2", Title: "Checkout v2", Items: []Item{
		{ID: "e-1", Kind: KindEpic, Title: "Guest checkout", Description: "Free Markdown description.\n\n```\n## Story x: not a heading\n```", Line: 6},
		{ID: "s-1", Kind: KindStory, Title: "Pay without an account", Description: "Description.", AcceptanceCriteria: []string{"A guest can pay with a card", "The order confirmation is e-mailed"}, CriteriaBoxes: []string{"", BoxTodo}, Epic: "e-1", Line: 13},
		{ID: "s-2", Kind: KindStory, Title: "Save address", Epic: "e-1", Line: 20, TakeDocument: true},
		{ID: "s-3", Kind: KindStory, Title: "Loose", Line: 24},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", d)
	}
}

func TestParseYAMLBasic(t *testing.T) {
	src := "id: checkout-v2\ntitle: Checkout v2\nepics:\n  - id: e-1\n    title: Guest checkout\n    stories:\n      - id: s-1\n        title: Pay\n        acceptance_criteria: [a, b]\nstories:\n  - id: s-3\n    title: Loose\n    epic: e-1\n    drift: take-document\n"
	got := mustParse(t, "plan.yaml", src)
	want := &Document{ID: "checkout-v2", Title: "Checkout v2", Items: []Item{
		{ID: "e-1", Kind: KindEpic, Title: "Guest checkout", Line: 4},
		{ID: "s-1", Kind: KindStory, Title: "Pay", AcceptanceCriteria: []string{"a", "b"}, Epic: "e-1", Line: 7},
		{ID: "s-3", Kind: KindStory, Title: "Loose", Epic: "e-1", Line: 11, TakeDocument: true},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", d)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	var pe *Error
	_, err := ReadFile(filepath.Join(dir, "missing.md"))
	if !errors.As(err, &pe) || pe.Code != CodeSourceNotFound {
		t.Fatalf("missing file: got %v, want SOURCE_NOT_FOUND", err)
	}
	_, err = ReadFile(dir)
	if !errors.As(err, &pe) || pe.Code != CodeSourceNotFound || !strings.Contains(pe.Message, "directory") {
		t.Fatalf("directory: got %v, want SOURCE_NOT_FOUND naming a directory", err)
	}
	big := filepath.Join(dir, "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSize + MaxSize/2 + 1<<20/5); err != nil { // sparse: 7.7 MiB, nothing written
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadFile(big)
	if !errors.As(err, &pe) || pe.Code != CodeSourceParseFailed || !strings.Contains(pe.Message, "(7.7 MiB); the limit is 5 MiB") {
		t.Fatalf("big file: got %v", err)
	}
	ok := filepath.Join(dir, "ok.md")
	if err := os.WriteFile(ok, []byte("## Story s-1: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(ok)
	if err != nil || string(b) != "## Story s-1: x\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
}

// TestExamplesAgree: examples/plan.md and examples/plan.yaml are the same
// plan in the two forms and must parse to the same model.
func TestExamplesAgree(t *testing.T) {
	parse := func(path string) *Document {
		t.Helper()
		data, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Parse(path, data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return doc
	}
	md := parse("../../examples/plan.md")
	yml := parse("../../examples/plan.yaml")
	if d := cmp.Diff(md, yml, cmpopts.IgnoreFields(Item{}, "Line")); d != "" {
		t.Errorf("examples differ (-plan.md +plan.yaml):\n%s", d)
	}
	epics, stories, loose := 0, 0, 0
	for _, it := range md.Items {
		switch {
		case it.Kind == KindEpic:
			epics++
		case it.Epic == "":
			loose++
		default:
			stories++
		}
	}
	if md.ID != "checkout-v2" || epics != 3 || stories != 7 || loose != 1 {
		t.Errorf("example has id %q, %d epics, %d stories in epics, %d without; want checkout-v2, 3, 7, 1", md.ID, epics, stories, loose)
	}
}

func TestLimits(t *testing.T) {
	var pe *Error
	// Deep nesting on one line is refused before the Markdown parser sees it.
	_, err := Parse("p.md", []byte("## Story s-1: x\n\n"+strings.Repeat("> ", 100)+"deep\n"))
	if !errors.As(err, &pe) || pe.Code != CodeSourceParseFailed || pe.Line != 3 || !strings.Contains(pe.Message, "nested too deeply") {
		t.Errorf("deep nesting: got %v", err)
	}
	// A flood of problems is capped, with one entry saying how many more.
	_, err = Parse("p.md", []byte(strings.Repeat("## Story s-1: x\n", MaxProblems+6)))
	if !errors.As(err, &pe) || len(pe.Problems) != MaxProblems+1 || !strings.HasPrefix(pe.Problems[MaxProblems].Message, "5 more problems are not listed") {
		t.Errorf("problem cap: got %d problems", len(pe.Problems))
	}
	// Input over MaxSize is refused by Parse too.
	_, err = Parse("p.md", make([]byte, MaxSize+1))
	if !errors.As(err, &pe) || pe.Code != CodeSourceParseFailed || !strings.Contains(pe.Message, "is 5,242,881 bytes (5.0 MiB); the limit is 5 MiB (5,242,880 bytes)") {
		t.Errorf("size cap, one byte over: got %v; want the sizes in bytes", err)
	}
	// How many problems the details list, and how many there are.
	_, err = Parse("p.md", []byte(strings.Repeat("## Story s-1: x\n", MaxProblems+6)))
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, fmt.Sprintf("has %d problems (the first %d listed in details)", MaxProblems+5, MaxProblems)) || pe.Unlisted != 5 {
		t.Errorf("problem cap: message %q, %d unlisted; want the count of all and of those listed", pe.Message, pe.Unlisted)
	}
	files := []SetFile{{Name: "a.md", Data: []byte("---\nid: a\n---\n" + strings.Repeat("## Story s-1: x\n", MaxProblems+6))}, {Name: "b.md", Data: []byte("---\nid: b\n---\n" + strings.Repeat("## Story s-1: x\n", 10))}}
	_, err = Options{}.ParseSet(files)
	if !errors.As(err, &pe) || len(pe.Problems) != MaxProblems+1 || pe.Unlisted != 14 || !strings.Contains(pe.Message, fmt.Sprintf("%d problems in the planning documents (the first %d listed in details", MaxProblems+14, MaxProblems)) || !strings.HasPrefix(pe.Problems[MaxProblems].Message, "14 more problems are not listed") {
		t.Errorf("problem cap of a set: %d problems, %d unlisted, message %q", len(pe.Problems), pe.Unlisted, pe.Message)
	}
	// Every adversarial document gives an answer (error or document).
	for name, data := range adversarialDocuments(128 << 10) {
		doc, err := Parse("p.md", data)
		if (doc == nil) == (err == nil) {
			t.Errorf("%s: doc=%v err=%v", name, doc != nil, err)
		}
	}
}

func TestLineEndingsAndBOM(t *testing.T) {
	want := mustParse(t, "p.md", "---\nid: d\n---\n## Epic e-1: A\nText\n\n### Story s-1: B\nAcceptance criteria:\n- c\n")
	for name, src := range map[string]string{
		"crlf":   "---\r\nid: d\r\n---\r\n## Epic e-1: A\r\nText\r\n\r\n### Story s-1: B\r\nAcceptance criteria:\r\n- c\r\n",
		"cr":     "---\rid: d\r---\r## Epic e-1: A\rText\r\r### Story s-1: B\rAcceptance criteria:\r- c\r",
		"bom":    "\xef\xbb\xbf---\nid: d\n---\n## Epic e-1: A\nText\n\n### Story s-1: B\nAcceptance criteria:\n- c\n",
		"no-eol": "---\nid: d\n---\n## Epic e-1: A\nText\n\n### Story s-1: B\nAcceptance criteria:\n- c",
	} {
		got, err := Parse("p.md", []byte(src))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func TestDocumentIDFromFileName(t *testing.T) {
	for name, want := range map[string]string{
		"plans/checkout-v2.md":  "checkout-v2",
		"My Plan (v2).markdown": "My-Plan-v2",
		"_draft.yml":            "draft",
		"/tmp/x/Q3 roadmap.md":  "Q3-roadmap",
		"日本.md":                 "",
		".md":                   "",
	} {
		if got := idFromName(name); got != want {
			t.Errorf("idFromName(%q) = %q, want %q", name, got, want)
		}
	}
	doc, err := Parse("plans/Q3 roadmap.md", []byte("## Story s-1: x\n"))
	if err != nil || doc.ID != "Q3-roadmap" {
		t.Fatalf("Parse = %+v, %v", doc, err)
	}
}

func TestParseErrorsTable(t *testing.T) {
	for _, tc := range []struct {
		name, file, src string
		code, want      string
	}{
		{"no name", "", "## Story s-1: x\n", CodeSourceParseFailed, "The document has no planning document extension; use .md or .markdown"},
		{"yaml no id, no file name", ".yaml", "stories: [{id: s-1, title: x}]\n", CodeValidationFailed, "add a top-level `id:`"},
		{"yaml id is a list", "p.yaml", "id: [a]\nstories: [{id: s-1, title: x}]\n", CodeValidationFailed, "The document id (line 1) is a list"},
		{"yaml empty id", "p.yaml", "id: \"\"\nstories: [{id: s-1, title: x}]\n", CodeValidationFailed, "The document id is empty"},
		{"front matter id is a mapping", "p.md", "---\nid: {a: b}\n---\n## Story s-1: x\n", CodeValidationFailed, "The document id in the front matter (line 2) is a mapping"},
		{"yaml story with stories", "p.yaml", "id: d\nstories: [{id: s-1, title: x, stories: []}]\n", CodeValidationFailed, "stories cannot contain stories"},
		{"yaml unknown key suggestion", "p.yaml", "id: d\nstory: []\n", CodeValidationFailed, `(did you mean "stories"?)`},
		{"empty file", "p.md", "", CodeValidationFailed, "defines no epics or stories"},
		{"empty yaml", "p.yml", "", CodeValidationFailed, "add an `epics:` list"},
		{"front matter only dashes", "p.md", "---", CodeSourceParseFailed, "is never closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.file, []byte(tc.src))
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want *Error", err)
			}
			if pe.Code != tc.code || !strings.Contains(pe.Error(), tc.want) {
				t.Errorf("got %q, want code %s containing %q", pe.Error(), tc.code, tc.want)
			}
			if !strings.HasPrefix(pe.Error(), pe.Code+": ") {
				t.Errorf("Error() = %q, want it to start with the code", pe.Error())
			}
		})
	}
}

func TestYAMLAliases(t *testing.T) {
	src := "id: d\nx-title: &t Shared title\nstories:\n  - id: s-1\n    title: *t\n"
	_, err := Parse("p.yaml", []byte(src))
	var pe *Error
	if !errors.As(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0].Field != "x-title" {
		t.Fatalf("want one unknown-key problem for x-title, got %v", err)
	}
	src = "id: d\nstories:\n  - id: s-1\n    title: &t Shared title\n  - id: s-2\n    title: *t\n"
	doc, err := Parse("p.yaml", []byte(src))
	if err != nil || doc.Items[1].Title != "Shared title" {
		t.Fatalf("alias to a scalar: %+v, %v", doc, err)
	}
}

// TestYAMLDuplicateKeys: the YAML parser keeps the last of two equal keys;
// the plan parser refuses them, at the earliest second
// occurrence, naming the key and both lines.
func TestYAMLDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		want      string
	}{
		{"top-level list", "id: d\nstories:\n  - id: s-1\n    title: a\nstories:\n  - id: s-2\n    title: b\n", 5, `the key "stories" is given twice in the same mapping (lines 2 and 5)`},
		{"item key", "id: d\nstories:\n  - id: s-1\n    title: a\n    title: b\n", 5, `the key "title" is given twice in the same mapping (lines 4 and 5)`},
		{"earliest wins over an outer one", "stories:\n  - id: s-1\n    id: s-2\n    title: a\nstories: []\n", 3, `the key "id" is given twice in the same mapping (lines 2 and 3)`},
		{"flow mapping", "id: d\nstories: [{id: s-1, title: a, id: s-2}]\n", 2, `the key "id" is given twice in the same mapping (lines 2 and 2)`},
		{"front matter", "---\ntitle: a\nid: d\ntitle: b\n---\n## Story s-1: x\n", 4, `the key "title" is given twice in the same mapping of the front matter (lines 2 and 4)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe, err := parseSource(tc.src)
			if pe == nil || pe.Code != CodeSourceParseFailed || pe.Line != tc.line || !strings.Contains(pe.Message, tc.want) {
				t.Fatalf("got %v (line %d), want SOURCE_PARSE_FAILED at line %d containing %q", err, lineOf(pe), tc.line, tc.want)
			}
		})
	}
	// Equal values under different mappings are no duplicate.
	if _, err := Parse("p.yaml", []byte("id: d\nstories:\n  - id: s-1\n    title: a\n  - id: s-2\n    title: a\n")); err != nil {
		t.Fatal(err)
	}
}

// mustParse parses src as the file name, failing t on an error.
func mustParse(t *testing.T, name, src string) *Document {
	t.Helper()
	doc, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// parseSource parses src as a Markdown plan when it starts like one (front
// matter or a heading), else as a YAML plan, and returns its error with
// the *Error in it (nil when there is none).
func parseSource(src string) (*Error, error) {
	name := "p.yaml"
	if strings.HasPrefix(src, "---") || strings.HasPrefix(src, "#") {
		name = "p.md"
	}
	_, err := Parse(name, []byte(src))
	var pe *Error
	errors.As(err, &pe)
	return pe, err
}

func lineOf(pe *Error) int {
	if pe == nil {
		return -1
	}
	return pe.Line
}

func TestKeyLineAdopts(t *testing.T) {
	md := "---\nid: adopt\n---\n## Epic e-1: Checkout\nKey: PROJ-12\nLabels: pay\n\n### Story s-1: Pay\nkey: proj-13\n\nKey: the main point is prose\n\n#### Sub-task t-1: Wire\nKey: PROJ-14\n"
	doc := mustParse(t, "plan.md", md)
	got := map[string]string{}
	for _, it := range append(doc.Items, doc.Subtasks...) {
		got[it.ID] = it.Key
	}
	want := map[string]string{"e-1": "PROJ-12", "s-1": "PROJ-13", "t-1": "PROJ-14"}
	for id, k := range want {
		if got[id] != k {
			t.Errorf("%s: Key = %q, want %q", id, got[id], k)
		}
	}
	if s := doc.Items[1]; !strings.Contains(s.Description, "Key: the main point is prose") {
		t.Errorf("a Key: line with spaces after the field block is description; got %q", s.Description)
	}
	if e := doc.Items[0]; strings.Contains(e.Description, "PROJ-12") || e.KeyLine != 5 {
		t.Errorf("the Key line is not description and records its line; got %q, line %d", e.Description, e.KeyLine)
	}

	y := "id: adopt\nepics:\n  - id: e-1\n    title: Checkout\n    key: PROJ-12\n    stories:\n      - id: s-1\n        title: Pay\n        key: PROJ-13\n        subtasks:\n          - id: t-1\n            title: Wire\n            key: PROJ-14\n"
	ydoc := mustParse(t, "plan.yaml", y)
	for _, it := range append(ydoc.Items, ydoc.Subtasks...) {
		if it.Key != want[it.ID] {
			t.Errorf("YAML %s: Key = %q, want %q", it.ID, it.Key, want[it.ID])
		}
	}
}

func TestKeyProblems(t *testing.T) {
	md := "## Epic e-1: A\nKey: PROJ-12\n\n## Story s-1: B\nKey: PROJ-12\n\n## Story s-2: C\nKey: 12\n\n## Story s-3: D\nKey: PROJ-1\nKey: PROJ-2\n\n## Story s-4: E\nKey:\n"
	_, err := Parse("plan.md", []byte(md))
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeValidationFailed {
		t.Fatalf("got %v, want VALIDATION_FAILED", err)
	}
	want := map[string]string{
		"s-1": "Story s-1 adopts PROJ-12 at line 5, which Epic e-1 adopts already (line 2)",
		"s-2": `Story s-2 has "Key: 12" at line 8, which is not a Jira issue key`,
		"s-3": "Story s-3 has two Key lines (lines 11 and 12)",
		"s-4": `Story s-4 has "Key:" with no issue key at line 15`,
	}
	for _, p := range pe.Problems {
		if w, ok := want[p.Item]; ok && strings.Contains(p.Message, w) && p.Field == "key" {
			delete(want, p.Item)
		}
	}
	for id, w := range want {
		t.Errorf("no problem for %s containing %q; got %+v", id, w, pe.Problems)
	}

	y := "stories:\n  - id: s-1\n    title: A\n    key: [PROJ-1]\n  - id: s-2\n    title: B\n    key: nope\n"
	_, err = Parse("plan.yaml", []byte(y))
	if !errors.As(err, &pe) || len(pe.Problems) != 2 {
		t.Fatalf("YAML: got %v, want 2 problems", err)
	}
}

// Render writes what the parser reads: keys, sub-tasks, boxes, fields,
// dependencies and a story placed after another epic, in both formats,
// with the header comment.
func TestRenderKeysSubtasksAndOrder(t *testing.T) {
	src := "---\nid: shop\n---\n## Epic e-1: Checkout\nKey: PROJ-1\nLabels: pay, web\n\nAbout it.\n\n## Epic e-2: Receipts\nKey: PROJ-2\n\n## Story s-1: Pay\nEpic: e-1\nKey: PROJ-3\nDepends on: s-2, PROJ-99\n\nPay by card.\n\nAcceptance criteria:\n- [x] Cards\n- [ ] Wallets\n\n#### Sub-task t-1: Wire\nKey: PROJ-4\n\n### Story s-2: Mail\nEpic: e-2\n\n## Story s-3: Loose\nKey: PROJ-5\n"
	doc := mustParse(t, "plan.md", src)
	ignore := cmpopts.IgnoreFields(Item{}, "KeyLine")
	ignoreLink := ignoreLines
	md, err := Render(doc, FormatMarkdown, "exported\nby a test")
	if err != nil || !strings.HasPrefix(string(md), "---\n# exported\n# by a test\nid: shop\n") {
		t.Fatalf("Render: %v\n%s", err, md)
	}
	back := mustParse(t, "plan.md", string(md))
	if d := cmp.Diff(doc, back, ignore, ignoreLink); d != "" {
		t.Errorf("Markdown round trip (-want +got):\n%s\n%s", d, md)
	}
	y, err := Render(doc, FormatYAML, "exported")
	if err != nil {
		t.Fatal(err)
	}
	yback := mustParse(t, "plan.yaml", string(y))
	byID := func(d *Document) map[string]Item {
		m := map[string]Item{}
		for _, it := range append(slices.Clone(d.Items), d.Subtasks...) {
			m[it.ID] = it
		}
		return m
	}
	if d := cmp.Diff(byID(doc), byID(yback), ignore, ignoreLink); d != "" {
		t.Errorf("YAML round trip (-want +got):\n%s\n%s", d, y)
	}
	if _, err := Render(doc, "toml", ""); err == nil {
		t.Error("an unknown format is an error")
	}
}

// A paragraph of more link openers than MaxBrackets (here 150 stories of
// 32,000-character descriptions that repeat "[a](") is refused before
// the Markdown parser reads it, naming the paragraph's line; escaped
// brackets and as many openers as the limit allows are read.
func TestTooManyLinkOpeners(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nid: hostile\n---\n")
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, "## Story s-%d: S\n\n%s\n\n", i, strings.Repeat("[a](", 8000))
	}
	_, err := Parse("hostile.md", []byte(b.String()))
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeSourceParseFailed || pe.Line != 6 || !strings.Contains(pe.Message, "line 6 (in the section of Story s-1) starts a paragraph with more than 1000 '['") || !strings.Contains(pe.Message, "Split the paragraph with blank lines") {
		t.Fatalf("Parse: %v; want the paragraph at line 6 refused", err)
	}
	ok := "## Story s-1: S\n\n" + strings.Repeat("[a](b) ", MaxBrackets/2) + "\n" + strings.Repeat("[a](b) ", MaxBrackets/2) + "\n\n" + strings.Repeat(`\[`, 5000) + "\n"
	if _, err := Parse("ok.md", []byte(ok)); err != nil {
		t.Errorf("a paragraph of %d links and one of escaped brackets: %v", MaxBrackets, err)
	}
}

// Links whose destinations never close ("[a](" repeated, in paragraphs
// below MaxBrackets) cost the Markdown parser the square of the line's
// length: refused before parsing, naming the line, in Markdown and in a
// YAML description alike. Links that close, however many, are read.
func TestUnclosedLinkDestinations(t *testing.T) {
	para := strings.Repeat("[a](", MaxBrackets-1)
	var b strings.Builder
	b.WriteString("---\nid: hostile\n---\n")
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, "## Story s-%d: S\n\n%s\n\n%s\n\n", i, para, para)
	}
	_, err := Parse("hostile.md", []byte(b.String()))
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeSourceParseFailed || pe.Line != 6 || !strings.Contains(pe.Message, "hostile.md line 6 (in the section of Story s-1) has many links whose destination is never closed") {
		t.Fatalf("Parse: %v; want line 6 refused", err)
	}
	yml := "id: hostile\nepics:\n  - id: e-1\n    title: E\n    stories:\n      - id: s-1\n        title: S\n        description: \"" + para + "\"\n"
	_, err = Parse("hostile.yaml", []byte(yml))
	if !errors.As(err, &pe) || pe.Code != CodeValidationFailed || !strings.Contains(err.Error(), "never closed") {
		t.Fatalf("Parse of the YAML form: %v; want the description refused", err)
	}
	ok := "## Story s-1: S\n\n" +
		strings.Repeat("[a](b) ", MaxBrackets/2) + "\n\n" + // closed destinations, many of them
		strings.Repeat("[![x](https://x/b.svg)](https://x/)", 200) + "\n\n" + // badges, no spaces between
		strings.Repeat("[Go](https://en.wikipedia.org/wiki/Go_(language)) ", 300) + "\n" // nested parens that close
	if _, err := Parse("ok.md", []byte(ok)); err != nil {
		t.Errorf("links that close: %v", err)
	}
}

func TestDestinationCost(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{
		{"no links here", 0},
		{"[a](b)", 1},
		{"[a](  b)", 1},
		{"[a](bc d", 2},
		{"[a](<b c>", 4},
		{`\](x(y z`, 0},
		{"[a]([a](", 4 + 0},
		{"[a]([a](x y", 5 + 1},
		{"[a](x(y)z) w", 6},
	} {
		if got := destinationCost(c.line); got != c.want {
			t.Errorf("destinationCost(%q) = %d, want %d", c.line, got, c.want)
		}
	}
}

// TestRichFormsAreDescriptionText: the Markdown forms of Jira's rich
// text (docs/markdown-adf.md: atom links, HTML marks, alerts, details,
// media images) are an item's description as written, never structure.
func TestRichFormsAreDescriptionText(t *testing.T) {
	desc := "[@Ana Lima](mention:5b10?accessLevel=) moved it to [BLOCKED](status:red) on [2026-01-01](date:1767225600000) [⚠️](emoji::warning:) <u><span style=\"color: #ff5630\">now</span></u>\n\n" +
		"<details><summary>Story s-9: inside</summary>\n\nHidden.\n\n</details>\n\n" +
		"> [!WARNING]\n>\n> ### Careful\n>\n> Hot.\n\n" +
		"> [!DECISION]\n>\n> - Use Postgres\n\n" +
		"![shot\\.png](media:abc?collection=c&single.layout=center&type=file)\n\n" +
		"[https://example.com/x](card:block)"
	src := "---\nid: rich\n---\n## Story s-1: Pay\n\n" + desc + "\n\n## Story s-2: Next\n"
	got := mustParse(t, "rich.md", src)
	if len(got.Items) != 2 || got.Items[0].Description != desc || got.Items[1].ID != "s-2" {
		t.Errorf("items: %+v\nwant s-1 with the description as written, then s-2", got.Items)
	}
}
