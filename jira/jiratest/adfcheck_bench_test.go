package jiratest_test

import (
	"encoding/json"
	"fmt"
	"testing"

	adfconv "github.com/devworkwire/devworkwire/jira/adf"
)

// benchStoryADF is the description the adapter sends for story i of the
// benchmark harness's documents: distinct text, one shape.
func benchStoryADF(b *testing.B, i int) json.RawMessage {
	md := fmt.Sprintf("As a user I want story %d so that the benchmark has some text to carry.\n\n## Acceptance criteria\n\n- It works\n- It is tested\n", i)
	d, err := adfconv.FromMarkdown(md)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkBulkCreate50Distinct is one bulk create of 50 stories whose
// descriptions all differ in their text (as in `make bench`); each
// iteration uses descriptions never sent before.
func BenchmarkBulkCreate50Distinct(b *testing.B) {
	_, post := benchServer(b)
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		var ups []any
		for j := 0; j < 50; j++ {
			n++
			f := issueFields("Story", fmt.Sprintf("Story %d", n), fmt.Sprintf("doc/s-%d", n))
			f["description"] = benchStoryADF(b, n)
			ups = append(ups, map[string]any{"fields": f, "properties": []any{map[string]any{"key": "devworkwire", "value": map[string]any{"digest": fmt.Sprintf("d%d", n)}}}})
		}
		body := map[string]any{"issueUpdates": ups}
		b.StartTimer()
		if code := post("/rest/api/3/issue/bulk", body); code != 201 {
			b.Fatalf("status %d", code)
		}
	}
}
