package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/internal/cputime"
	"github.com/yuin/goldmark/text"
)

// bigDocument generates a Markdown document of n items, about 2% of them
// epics, each story with a description and two acceptance criteria.
func bigDocument(n int) []byte {
	var b strings.Builder
	b.WriteString("---\nid: big-plan\n---\n# A big plan\n")
	epic := 0
	for i := 0; i < n; i++ {
		if i%50 == 0 {
			epic++
			fmt.Fprintf(&b, "\n## Epic e-%d: Epic number %d\nThe epic's description, with a [link](https://example.com/%d).\n", epic, epic, epic)
			continue
		}
		fmt.Fprintf(&b, "\n### Story s-%d: Story number %d of epic %d\nAs a user I want item %d so that the plan is big.\n\n```\n## not a heading\n```\n\nAcceptance criteria:\n- Criterion one of %d\n- [ ] Criterion two of %d\n", i, i, epic, i, i, i)
	}
	return []byte(b.String())
}

// BenchmarkParse10k parses and validates a generated 10,000-item
// document (200 epics, 9,800 stories). Target: < 100 ms/op, < 100 MB/op.
func BenchmarkParse10k(b *testing.B) {
	data := bigDocument(10000)
	benchParse(b, "big.md", data)
}

// benchParse parses data as name, a 10,000-item document, per op and
// reports the CPU time next to the wall time.
func benchParse(b *testing.B, name string, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		doc, err := Parse(name, data)
		if err != nil || len(doc.Items) != 10000 {
			b.Fatalf("Parse: %v", err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkGoldmark10k is the baseline: goldmark's block parse alone of the
// same document, without any of this package's work.
func BenchmarkGoldmark10k(b *testing.B) {
	data := bigDocument(10000)
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		mdParser.Parse(text.NewReader(data))
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkParse10kYAML is the same document in YAML form.
func BenchmarkParse10kYAML(b *testing.B) {
	doc, err := Parse("big.md", bigDocument(10000))
	if err != nil {
		b.Fatal(err)
	}
	benchParse(b, "big.yaml", RenderYAML(doc))
}

func TestBigDocumentParses(t *testing.T) {
	doc, err := Parse("big.md", bigDocument(500))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Items) != 500 || doc.Items[499].Epic != "e-10" || len(doc.Items[499].AcceptanceCriteria) != 2 {
		t.Fatalf("unexpected document: %d items, last %+v", len(doc.Items), doc.Items[len(doc.Items)-1])
	}
}

// adversarialDocuments are inputs of about size bytes built to be slow for a
// Markdown parser (deep nesting) or to produce a flood of problems.
func adversarialDocuments(size int) map[string][]byte {
	// doc repeats unit after head up to about size bytes.
	doc := func(head, unit string) []byte {
		n := (size - len(head) - 1) / len(unit)
		return []byte(head + strings.Repeat(unit, max(n, 1)))
	}
	var nest strings.Builder
	for i := 0; i < 63; i++ {
		nest.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	return map[string][]byte{
		"nested-lists":  doc("## Story s-1: x\n", nest.String()),
		"quotes":        doc("## Story s-1: x\n", strings.Repeat(">", 120)+"\n"),
		"deep-lines":    doc("## Story s-1: x\n"+nest.String(), strings.Repeat("  ", 63)+"b\n"),
		"duplicate-ids": doc("", "## Story s-1: x\nEpic: e-9\n"),
		"markers":       doc("## Story s-1: x\n", "Epic: e-1\nDrift: take-document\n"),
		"criteria":      doc("## Story s-1: x\nAcceptance criteria:\n", "- a\n"),
	}
}

// BenchmarkParseAdversarial parses each adversarial document (about 5 MiB).
func BenchmarkParseAdversarial(b *testing.B) {
	for name, data := range adversarialDocuments(MaxSize) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				_, _ = Parse("adversarial.md", data)
			}
		})
	}
}
