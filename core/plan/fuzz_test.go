package plan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	doc, err := Parse(name, data)
	doc2, err2 := Parse(name, data)
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
	for _, it := range doc.Items {
		if it.Epic != "" && ids[it.Epic] != KindEpic {
			t.Fatalf("story %s names %q, not an epic of the document", it.ID, it.Epic)
		}
		if it.Kind == KindEpic && it.Epic != "" {
			t.Fatalf("epic %s has an epic", it.ID)
		}
	}
}

func FuzzParseMarkdown(f *testing.F) {
	addSeeds(f, ".md")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "fuzz.md", data)
	})
}

func FuzzParseYAML(f *testing.F) {
	addSeeds(f, ".yaml", ".yml")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "fuzz.yaml", data)
	})
}
