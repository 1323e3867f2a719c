package plan

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func set[T any](v T, line int) Field[T] {
	return Field[T]{State: FieldSet, Value: v, From: SourceItem, Line: line}
}

func cleared[T any](line int) Field[T] {
	return Field[T]{State: FieldCleared, From: SourceItem, Line: line}
}

// TestFieldBlock: one case per rule of the Markdown field block. Each
// source is a story s-1 (line 1) whose section is given; want is its
// Fields and description.
func TestFieldBlock(t *testing.T) {
	team := Options{CustomFields: []string{"Team", "Cost center", "Priority"}}
	for _, tc := range []struct {
		name    string
		opts    Options
		section string
		want    Fields
		desc    string
	}{
		{name: "no block", section: "Just a description.", desc: "Just a description."},
		{name: "each built-in", section: "Labels: a, b\nPriority: High\nAssignee: ana@example.com\nEstimate: 5\nComponents: Web, API\nFix versions: 2027.1, 2027.2\nDue: 2027-03-01",
			want: Fields{Labels: set([]string{"a", "b"}, 2), Priority: set("High", 3), Assignee: set("ana@example.com", 4), Estimate: set(5.0, 5),
				Components: set([]string{"Web", "API"}, 6), FixVersions: set([]string{"2027.1", "2027.2"}, 7), Due: set("2027-03-01", 8)}},
		{name: "names are case-insensitive, spaces collapse", section: "LABELS: a\npriority: Low\nfix  VERSION: 1.0", want: Fields{Labels: set([]string{"a"}, 2), Priority: set("Low", 3), FixVersions: set([]string{"1.0"}, 4)}},
		{name: "none clears", section: "Assignee: none\nLabels: NONE\nEstimate: None\nDue: none", want: Fields{Assignee: cleared[string](2), Labels: cleared[[]string](3), Estimate: cleared[float64](4), Due: cleared[string](5)}},
		{name: "lists drop repeats and keep order", section: "Components: b, a, b", want: Fields{Components: set([]string{"b", "a"}, 2)}},
		{name: "decimal estimate", section: "Estimate: 0.5", want: Fields{Estimate: set(0.5, 2)}},
		{name: "markers stand in the block", section: "Drift: take-document\nPriority: High\nEpic: prose, not a marker", want: Fields{Priority: set("High", 3)}, desc: "Epic: prose, not a marker"},
		{name: "other Word: lines stay description", section: "Note: keep me\nPriority: High\nSee: https://example.com", want: Fields{Priority: set("High", 3)}, desc: "Note: keep me\nSee: https://example.com"},
		{name: "a blank line before the block is fine", section: "\nPriority: High\n\nText.", want: Fields{Priority: set("High", 3)}, desc: "Text."},
		{name: "the block ends at the first other line", section: "Priority: High\nSome prose.\nLabels: not-a-field", want: Fields{Priority: set("High", 2)}, desc: "Some prose.\nLabels: not-a-field"},
		{name: "only the first paragraph is the block", section: "Intro.\n\nPriority: High", desc: "Intro.\n\nPriority: High"},
		{name: "not in a list or code", section: "- Priority: High\n\n```\nLabels: x\n```", desc: "- Priority: High\n\n```\nLabels: x\n```"},
		{name: "undeclared custom name is description", section: "Team: Payments", desc: "Team: Payments"},
		{name: "declared custom field", opts: team, section: "team: Payments\nCost Center: 4711\nTopic: no", want: Fields{Custom: map[string]Field[string]{"Team": set("Payments", 2), "Cost center": set("4711", 3)}}, desc: "Topic: no"},
		{name: "custom none clears", opts: team, section: "Team: none", want: Fields{Custom: map[string]Field[string]{"Team": cleared[string](2)}}},
		{name: "a declared name equal to a built-in stays built-in", opts: team, section: "Priority: High", want: Fields{Priority: set("High", 2)}},
		{name: "block before setext underline", section: "Priority: High\n---", want: Fields{Priority: set("High", 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "## Story s-1: Title\n" + tc.section + "\n"
			doc, err := tc.opts.Parse("p.md", []byte(src))
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, src)
			}
			it := doc.Items[0]
			if d := cmp.Diff(tc.want, it.Fields, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("Fields (-want +got):\n%s", d)
			}
			if it.Description != tc.desc {
				t.Errorf("Description = %q, want %q", it.Description, tc.desc)
			}
		})
	}
}

// TestFieldErrors: every refusal names the item, the field and the line.
func TestFieldErrors(t *testing.T) {
	opts := Options{CustomFields: []string{"Team"}}
	for _, tc := range []struct {
		name, file, src string
		field           string
		line            int
		want            string
	}{
		{"typo", "p.md", "## Story s-1: T\nPriorty: High\n", "priority", 2, `did you mean "Priority"?`},
		{"transposed custom", "p.md", "## Story s-1: T\nTema: x\n", "fields.Team", 2, `did you mean "Team"?`},
		{"known name plus a word", "p.md", "## Story s-1: T\nDue date: 2027-03-01\n", "due", 2, `did you mean "Due"?`},
		{"estimate not a number", "p.md", "## Story s-1: T\nEstimate: five\n", "estimate", 2, "Estimate is a number of 0 or more"},
		{"estimate negative", "p.md", "## Story s-1: T\nEstimate: -2\n", "estimate", 2, "Estimate is a number of 0 or more"},
		{"estimate exponent", "p.md", "## Story s-1: T\nEstimate: 1e3\n", "estimate", 2, "Estimate is a number of 0 or more"},
		{"due not a date", "p.md", "## Story s-1: T\nDue: 2027-13-01\n", "due", 2, "YYYY-MM-DD"},
		{"due another format", "p.md", "## Story s-1: T\nDue: 01.03.2027\n", "due", 2, "YYYY-MM-DD"},
		{"no value", "p.md", "## Story s-1: T\nAssignee:\n", "assignee", 2, `"Assignee:" with no value`},
		{"empty list entry", "p.md", "## Story s-1: T\nLabels: a,,b\n", "labels", 2, "empty entry"},
		{"label with a space", "p.md", "## Story s-1: T\nLabels: guest checkout\n", "labels", 2, "Jira labels cannot contain spaces"},
		{"set twice", "p.md", "## Story s-1: T\nFix versions: 1\nFix version: 2\n", "fix_versions", 3, "sets Fix versions twice (lines 2 and 3)"},
		{"yaml estimate", "p.yaml", "stories:\n  - id: s-1\n    title: T\n    estimate: many\n", "estimate", 4, "Estimate is a number"},
		{"yaml null", "p.yaml", "stories:\n  - id: s-1\n    title: T\n    assignee:\n", "assignee", 4, "with no value"},
		{"yaml list for a single value", "p.yaml", "stories:\n  - id: s-1\n    title: T\n    priority: [a]\n", "priority", 4, "write one value"},
		{"yaml undeclared custom", "p.yaml", "stories:\n  - id: s-1\n    title: T\n    fields: {Taem: x}\n", "fields.Taem", 4, `does not declare (did you mean "Team"?)`},
		{"yaml built-in under fields", "p.yaml", "stories:\n  - id: s-1\n    title: T\n    fields: {due: 2027-01-01}\n", "fields.due", 4, "Due is a built-in field; write `due:`"},
		{"yaml custom case twice", "p.yaml", "stories:\n  - id: s-1\n    title: T\n    fields: {Team: a, team: b}\n", "fields.Team", 4, "sets Team twice"},
		{"yaml typo key", "p.yaml", "stories:\n  - id: s-1\n    title: T\n    fix_version: [1]\n", "fix_version", 4, `did you mean "fix_versions"?`},
		{"defaults typo", "p.yaml", "defaults: {priorty: High}\nstories:\n  - id: s-1\n    title: T\n", "defaults.priorty", 1, `did you mean "priority"?`},
		{"front matter defaults value", "p.md", "---\ndefaults:\n  due: soon\n---\n## Story s-1: T\n", "due", 3, "The document's `defaults:` has \"due: soon\" at line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := opts.Parse(tc.file, []byte(tc.src))
			var pe *Error
			if !errors.As(err, &pe) || pe.Code != CodeValidationFailed || len(pe.Problems) != 1 {
				t.Fatalf("got %v, want VALIDATION_FAILED with one problem", err)
			}
			p := pe.Problems[0]
			if p.Field != tc.field || p.Line != tc.line || !strings.Contains(p.Message, tc.want) {
				t.Errorf("problem %+v, want field %q line %d containing %q", p, tc.field, tc.line, tc.want)
			}
		})
	}
}

// A misspelt field name is edits away in characters, not bytes: a line
// two letters off a custom field named with letters outside ASCII is
// refused with the name, not kept as description.
func TestMisspeltFieldNameCountsCharacters(t *testing.T) {
	opts := Options{CustomFields: []string{"Bürgschäft"}}
	_, err := opts.Parse("p.md", []byte("## Story s-1: T\nBurgschaft: x\n"))
	var pe *Error
	if !errors.As(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0].Line != 2 || !strings.Contains(pe.Problems[0].Message, `did you mean "Bürgschäft"?`) {
		t.Fatalf("got %v, want the line refused with did you mean \"Bürgschäft\"?", err)
	}
}

// TestFieldDefaults: item > document defaults; labels add up.
func TestFieldDefaults(t *testing.T) {
	src := "---\nid: d\ndefaults:\n  labels: [base]\n  priority: Medium\n  assignee: none\n---\n" +
		"## Story s-1: Own values\nLabels: extra, base\nPriority: High\n\n" +
		"## Story s-2: Defaults only\n\n" +
		"## Story s-3: Clears\nLabels: none\nPriority: none\nAssignee: bo@example.com\n"
	doc := mustParse(t, "p.md", src)
	doc2 := func(v string, l int) Field[string] {
		return Field[string]{State: FieldSet, Value: v, From: SourceDocument, Line: l}
	}
	want := []Fields{
		{Labels: Field[[]string]{State: FieldSet, Value: []string{"base", "extra"}, From: "item+document", Line: 9}, Priority: set("High", 10), Assignee: Field[string]{State: FieldCleared, From: SourceDocument, Line: 6}},
		{Labels: Field[[]string]{State: FieldSet, Value: []string{"base"}, From: SourceDocument, Line: 4}, Priority: doc2("Medium", 5), Assignee: Field[string]{State: FieldCleared, From: SourceDocument, Line: 6}},
		{Labels: cleared[[]string](15), Priority: cleared[string](16), Assignee: set("bo@example.com", 17)},
	}
	for i, w := range want {
		if d := cmp.Diff(w, doc.Items[i].Fields); d != "" {
			t.Errorf("%s (-want +got):\n%s", doc.Items[i].ID, d)
		}
	}
	if doc.Defaults.Priority.Value != "Medium" || doc.Defaults.Priority.From != SourceDocument {
		t.Errorf("Defaults = %+v", doc.Defaults)
	}
	// A project's defaults apply to the result the same way.
	project := Fields{Labels: Field[[]string]{State: FieldSet, Value: []string{"team-a"}, From: "config"}, Due: Field[string]{State: FieldSet, Value: "2027-01-01", From: "config"}}
	got := doc.Items[0].Fields.WithDefaults(project)
	if d := cmp.Diff([]string{"team-a", "base", "extra"}, got.Labels.Value); d != "" || got.Labels.From != "item+document+config" || got.Due.Value != "2027-01-01" || got.Priority.Value != "High" {
		t.Errorf("WithDefaults(project) = %+v (labels diff %s)", got, d)
	}
	// WithDefaults does not share list storage with its inputs.
	got.Labels.Value[0] = "changed"
	if project.Labels.Value[0] != "team-a" {
		t.Errorf("WithDefaults aliases the defaults' labels")
	}
}

// TestFieldsMarkdownYAMLAgree: testdata/parse/fields.md and fields.yaml are
// one plan in the two forms (a field of every kind, defaults, none) and
// parse to the same model.
func TestFieldsMarkdownYAMLAgree(t *testing.T) {
	for _, name := range []string{"fields", "structure"} {
		md, yml := parseFile(t, "testdata/parse/"+name+".md"), parseFile(t, "testdata/parse/"+name+".yaml")
		if d := cmp.Diff(md, yml, ignoreLines); d != "" {
			t.Errorf("%s.md and %s.yaml differ (-md +yaml):\n%s", name, name, d)
		}
	}
	md := parseFile(t, "testdata/parse/fields.md")
	if !md.Items[1].Fields.Estimate.Managed() || md.Items[len(md.Items)-1].Fields.Estimate.Managed() {
		t.Errorf("Managed() wrong: %+v", md.Items)
	}
}

// TestExistingDocumentsManageNoFields: documents written before fields
// existed parse to items that manage nothing (and so to the same JSON).
func TestExistingDocumentsManageNoFields(t *testing.T) {
	for _, path := range []string{"../../examples/plan.md", "../../examples/plan.yaml", "testdata/parse/design-example.md", "testdata/parse/full.yaml", "testdata/parse/tricky-blocks.md", "testdata/parse/separators.md"} {
		for _, it := range parseFile(t, path).Items {
			if !cmp.Equal(it.Fields, Fields{}) {
				t.Errorf("%s: %s has fields %+v", path, it.ID, it.Fields)
			}
		}
	}
}

// parseFile parses the document at path with goldenOptions.
func parseFile(t *testing.T, path string) *Document {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goldenOptions.Parse(path, data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}
