package adf

import (
	"encoding/json"
	"testing"

	"github.com/devworkwire/devworkwire/jira/internal/adfschema"
	"github.com/devworkwire/devworkwire/jira/internal/mdcorpustest"
)

// example is one entry of testdata/commonmark-adf-examples.json: a
// CommonMark spec example and the ADF Atlassian's own transformer makes of it.
type example = mdcorpustest.Example

func loadCorpus(t testing.TB) []example { return mdcorpustest.Load(t) }

// fataler is what test helpers need of a *testing.T, *testing.B or *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

func mustJSON(t fataler, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkMarkdown asserts the converter's two invariants for one input: the
// ADF is schema-valid, and Markdown → ADF → Markdown → ADF is a fixed point.
func checkMarkdown(t testing.TB, name, md string) Doc {
	t.Helper()
	d, err := FromMarkdown(md)
	if err != nil {
		t.Fatalf("%s: FromMarkdown: %v", name, err)
	}
	j := mustJSON(t, d)
	if err := adfschema.Validate(j); err != nil {
		t.Errorf("%s: invalid ADF: %v\nmarkdown: %q\nadf: %s", name, err, md, j)
	}
	if err := checkStructure(d); err != nil {
		t.Errorf("%s: %v\nmarkdown: %q\nadf: %s", name, err, md, j)
	}
	md2 := ToMarkdown(d)
	d2, err := FromMarkdown(md2)
	if err != nil {
		t.Fatalf("%s: FromMarkdown(ToMarkdown): %v", name, err)
	}
	if j2 := mustJSON(t, d2); string(j) != string(j2) {
		t.Errorf("%s: not a fixed point\nmarkdown:  %q\nadf:       %s\nmarkdown2: %q\nadf2:      %s", name, md, j, md2, j2)
	}
	return d
}

func TestCorpusSchemaValidAndFixedPoint(t *testing.T) {
	for _, e := range loadCorpus(t) {
		checkMarkdown(t, "example "+itoa(e.Example), e.Markdown)
	}
}
