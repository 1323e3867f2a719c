package plan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// addSeeds adds every test document with one of exts to the fuzz corpus,
// on top of the checked-in corpus under testdata/fuzz.
func addSeeds(f *testing.F, exts ...string) {
	for _, dir := range []string{"testdata/parse", "testdata/malformed", "../../examples"} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			for _, x := range exts {
				if strings.HasSuffix(e.Name(), x) {
					if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
						f.Add(b)
					}
				}
			}
		}
	}
}

// checkParse asserts the invariants every Parse result must keep: no
// panic, a *Error with a known code or a valid document, and the same
// answer twice.
func checkParse(t *testing.T, name string, data []byte) {
	checkParseWith(t, Options{}, name, data)
}

// checkParseWith is checkParse with parse options (custom fields).
func checkParseWith(t *testing.T, opts Options, name string, data []byte) {
	doc, err := opts.Parse(name, data)
	doc2, err2 := opts.Parse(name, data)
	if !reflect.DeepEqual(doc, doc2) || !reflect.DeepEqual(err, err2) {
		t.Fatalf("Parse is not deterministic")
	}
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("error is %T, want *plan.Error", err)
		}
		if doc != nil {
			t.Fatalf("Parse returned both a document and an error")
		}
		switch pe.Code {
		case CodeSourceParseFailed:
		case CodeValidationFailed:
			if len(pe.Problems) == 0 {
				t.Fatalf("VALIDATION_FAILED without problems")
			}
			for _, p := range pe.Problems {
				if p.Message == "" || p.Line < 0 {
					t.Fatalf("bad problem %+v", p)
				}
			}
		default:
			t.Fatalf("unexpected code %q", pe.Code)
		}
		if pe.Message == "" {
			t.Fatalf("empty message")
		}
		return
	}
	if doc == nil || !ValidID(doc.ID) || len(doc.Items) == 0 {
		t.Fatalf("invalid document %+v", doc)
	}
	ids := map[string]string{}
	last := 0
	for _, it := range doc.Items {
		if !ValidID(it.ID) || (it.Kind != KindEpic && it.Kind != KindStory) {
			t.Fatalf("invalid item %+v", it)
		}
		if strings.TrimSpace(it.Title) == "" || len([]rune(it.Title)) > MaxTitleLength {
			t.Fatalf("invalid title %q", it.Title)
		}
		if _, dup := ids[it.ID]; dup {
			t.Fatalf("duplicate id %q", it.ID)
		}
		ids[it.ID] = it.Kind
		if it.Line <= last {
			t.Fatalf("items out of order: line %d after %d", it.Line, last)
		}
		last = it.Line
		for _, c := range it.AcceptanceCriteria {
			if strings.TrimSpace(c) == "" {
				t.Fatalf("empty criterion in %s", it.ID)
			}
		}
		checkFields(t, it.ID, it.Fields)
	}
	if strings.HasSuffix(name, ".md") {
		// Every item's line is its heading.
		norm, _ := checkText(name, data)
		lines := strings.Split(string(norm), "\n")
		for _, it := range doc.Items {
			if it.Line > len(lines) {
				t.Fatalf("item %s: line %d beyond the end (%d lines)", it.ID, it.Line, len(lines))
			}
			h := strings.TrimLeft(lines[it.Line-1], " ")
			if !strings.HasPrefix(h, "##") || !strings.Contains(h, it.ID) {
				t.Fatalf("item %s: line %d is %q, not its heading", it.ID, it.Line, h)
			}
		}
	}
	for _, st := range doc.Subtasks {
		if st.Kind != KindSubtask || ids[st.Story] != KindStory || !ValidID(st.ID) || strings.TrimSpace(st.Title) == "" {
			t.Fatalf("invalid sub-task %+v", st)
		}
		if _, dup := ids[st.ID]; dup {
			t.Fatalf("duplicate id %q", st.ID)
		}
		ids[st.ID] = st.Kind
		checkFields(t, st.ID, st.Fields)
	}
	for _, it := range append(slices.Clone(doc.Items), doc.Subtasks...) {
		for _, l := range append(slices.Clone(it.DependsOn), it.Blocks...) {
			if l.Kind == LinkItem && (ids[l.Target] == "" || l.Target == it.ID) {
				t.Fatalf("%s: link to %q, not another item of the document", it.ID, l.Target)
			}
		}
	}
	for _, it := range doc.Items {
		if it.Epic != "" && ids[it.Epic] != KindEpic {
			t.Fatalf("story %s names %q, not an epic of the document", it.ID, it.Epic)
		}
		if it.Kind == KindEpic && it.Epic != "" {
			t.Fatalf("epic %s has an epic", it.ID)
		}
	}
}

// checkFields asserts what a valid document's fields always hold: a
// state the value agrees with, list entries that are non-empty (labels
// without spaces), an estimate of 0 or more, a real date.
func checkFields(t *testing.T, id string, f Fields) {
	lists := map[string]Field[[]string]{"labels": f.Labels, "components": f.Components, "fix_versions": f.FixVersions}
	for name, l := range lists {
		if l.State != FieldSet && len(l.Value) > 0 {
			t.Fatalf("%s: %s is %q with values %q", id, name, l.State, l.Value)
		}
		for _, v := range l.Value {
			if strings.TrimSpace(v) == "" || (name == "labels" && strings.ContainsAny(v, " \t")) {
				t.Fatalf("%s: bad %s entry %q", id, name, v)
			}
		}
	}
	if f.Estimate.Value < 0 || (f.Estimate.State != FieldSet && f.Estimate.Value != 0) {
		t.Fatalf("%s: estimate %+v", id, f.Estimate)
	}
	if f.Due.State == FieldSet {
		if _, err := time.Parse(time.DateOnly, f.Due.Value); err != nil {
			t.Fatalf("%s: due %q", id, f.Due.Value)
		}
	}
	for _, s := range []Field[string]{f.Priority, f.Assignee, f.Due} {
		if (s.State == FieldSet) != (s.Value != "") {
			t.Fatalf("%s: field %+v", id, s)
		}
	}
}

func FuzzParseMarkdown(f *testing.F) {
	addSeeds(f, ".md")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "fuzz.md", data)
		checkParseWith(t, goldenOptions, "fuzz.md", data)
	})
}

func FuzzParseYAML(f *testing.F) {
	addSeeds(f, ".yaml", ".yml")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "fuzz.yaml", data)
		checkParseWith(t, goldenOptions, "fuzz.yaml", data)
	})
}
