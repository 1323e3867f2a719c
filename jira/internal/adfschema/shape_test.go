package adfschema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// TestShapeKeywordsMonotone keeps true what the shape cache relies on: the
// schema uses only keywords under which replacing a non-empty text by "x"
// can turn a valid document invalid but never an invalid one valid, and
// every "text" property is constrained only by type string, minLength ≤ 1
// or an enum without "x".
func TestShapeKeywordsMonotone(t *testing.T) {
	var s any
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		t.Fatal(err)
	}
	allowed := []string{"$schema", "$ref", "description", "definitions", "type", "properties", "additionalProperties",
		"required", "enum", "items", "anyOf", "allOf", "minItems", "maxItems", "minLength", "minimum", "maximum", "pattern"}
	var walk func(v any, path string, keywords bool)
	walk = func(v any, path string, keywords bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if keywords && !slices.Contains(allowed, k) {
					t.Errorf("%s: schema keyword %q is not known to be safe for the shape cache (shape.go); check the argument there before allowing it", path, k)
				}
				if k == "properties" {
					props, _ := c.(map[string]any)
					if txt, ok := props["text"].(map[string]any); ok {
						for ck, cv := range txt {
							switch {
							case ck == "type" && cv == "string":
							case ck == "minLength" && cv.(float64) <= 1:
							case ck == "enum" && !slices.Contains(cv.([]any), any(shapeText)):
							default:
								t.Errorf("%s/properties/text: constraint %s=%v breaks the shape cache's argument", path, ck, cv)
							}
						}
					}
				}
				// The names under properties/definitions are not keywords.
				walk(c, path+"/"+k, !(keywords && (k == "properties" || k == "definitions")))
			}
		case []any:
			for i, c := range x {
				walk(c, fmt.Sprintf("%s/%d", path, i), true)
			}
		}
	}
	walk(s, "", true)
}

// corpus returns the ADF of the converter's CommonMark corpus plus a few
// hand-written documents around text nodes.
func corpus(t *testing.T) [][]byte {
	t.Helper()
	b, err := os.ReadFile("../../adf/testdata/commonmark-adf-examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex []struct {
		ADF json.RawMessage `json:"adf"`
	}
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range ex {
		out = append(out, e.ADF)
	}
	for _, s := range []string{
		`{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"a"},{"type":"hardBreak","attrs":{"text":"\n"}},{"type":"text","text":"b"}]}]}`,
		`{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"hardBreak","attrs":{"text":"x"}}]}]}`,
		`{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":""}]}]}`,
		`{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":7}]}]}`,
		`{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"status","attrs":{"text":"x","color":"blue"}}]}]}`,
		`{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"status","attrs":{"text":"","color":"blue"}}]}]}`,
		`{"version":1,"type":"doc","content":[{"type":"codeBlock","content":[{"type":"text","text":"go","marks":[{"type":"strong"}]}]}]}`,
		`{"version":1,"type":"doc","content":[{"type":"text","text":"top"}]}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// objects lists the JSON objects in v, depth first, keys in order (so a
// seeded random choice among them is repeatable).
func objects(v any) []map[string]any {
	var out []map[string]any
	switch y := v.(type) {
	case map[string]any:
		out = append(out, y)
		keys := make([]string, 0, len(y))
		for k := range y {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, objects(y[k])...)
		}
	case []any:
		for _, c := range y {
			out = append(out, objects(c)...)
		}
	}
	return out
}

// mutate returns doc with one random change: a key dropped, a value
// replaced by another type, a text emptied, or a node type swapped.
func mutate(r *rand.Rand, doc []byte) []byte {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return doc
	}
	nodes := objects(v)
	n := nodes[r.IntN(len(nodes))]
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		n["type"] = "paragraph"
	} else {
		k := keys[r.IntN(len(keys))]
		switch r.IntN(6) {
		case 0:
			delete(n, k)
		case 1:
			n[k] = 3
		case 2:
			n[k] = ""
		case 3:
			n["type"] = []string{"text", "paragraph", "hardBreak", "heading", "listItem", "mention"}[r.IntN(6)]
		case 4:
			n["extra"] = true
		case 5:
			n[k] = "x"
		}
	}
	b, _ := json.Marshal(v)
	return b
}

// retext returns doc with the text of every text node replaced by other
// non-empty text (same shape, other words).
func retext(r *rand.Rand, doc []byte) []byte {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return doc
	}
	for _, y := range objects(v) {
		if t, ok := y["text"].(string); ok && t != "" && y["type"] == "text" {
			y["text"] = []string{"other words", "\n", "x", "ü ✓ 𝄞", " "}[r.IntN(5)]
		}
	}
	b, _ := json.Marshal(v)
	return b
}

// TestValidateAgreesWithFullValidation: with the shape cache, every
// document gets the verdict the full schema validation gives: the
// corpus (validated twice, so the second answer may come from the cache),
// the same documents with other words (answered from remembered shapes)
// and mutated, mostly invalid, documents sharing parts with valid ones.
// (The validator's error text lists branches in no fixed order, so only
// verdicts are compared.)
func TestValidateAgreesWithFullValidation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := corpus(t)
	var docs [][]byte
	for i, d := range base {
		docs = append(docs, d, d, retext(r, d))
		if i%8 == 0 {
			docs = append(docs, mutate(r, d))
		}
	}
	valid, invalid := 0, 0
	for i, d := range docs {
		want := validateFull(d) == nil
		if got := Validate(d) == nil; got != want {
			t.Fatalf("document %d: Validate says valid=%v, full validation valid=%v\n%s", i, got, want, d)
		}
		if want {
			valid++
		} else {
			invalid++
		}
	}
	if valid < 600 || invalid < 20 {
		t.Fatalf("corpus too one-sided to prove anything: %d valid, %d invalid", valid, invalid)
	}
}

// TestShapeRemembered: a document's shape is remembered once valid, one
// with the same structure and other words is then answered from it, and a
// document whose only difference is an empty text is not.
func TestShapeRemembered(t *testing.T) {
	doc := func(text string) []byte {
		return []byte(`{"version":1,"type":"doc","content":[{"type":"heading","attrs":{"level":2},"content":[{"type":"text","text":` + fmt.Sprintf("%q", text) + `}]}]}`)
	}
	if err := Validate(doc("Acceptance criteria 41")); err != nil {
		t.Fatal(err)
	}
	key := func(d []byte) [32]byte {
		var v any
		if err := json.Unmarshal(d, &v); err != nil {
			t.Fatal(err)
		}
		toShape(v)
		k, ok := shapeKey(v)
		if !ok {
			t.Fatal("no key")
		}
		return k
	}
	if !knownShape(key(doc("Something else entirely"))) {
		t.Fatal("a document with the same structure and other words is not answered from the remembered shape")
	}
	if key(doc("")) == key(doc("a")) {
		t.Fatal("an empty text has the shape of a non-empty one")
	}
	if err := Validate(doc("")); err == nil {
		t.Fatal("a document with an empty text was accepted")
	}
}

func BenchmarkValidateStoryDistinct(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		d := fmt.Appendf(nil, `{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"As a user I want story %d so that the benchmark has some text to carry."}]},{"type":"heading","attrs":{"level":2},"content":[{"type":"text","text":"Acceptance criteria"}]},{"type":"bulletList","content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"It works"}]}]},{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"It is tested %d"}]}]}]}]}`, i, i)
		if err := Validate(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateFullStoryDistinct(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		d := fmt.Appendf(nil, `{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"As a user I want story %d so that the benchmark has some text to carry."}]},{"type":"heading","attrs":{"level":2},"content":[{"type":"text","text":"Acceptance criteria"}]},{"type":"bulletList","content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"It works"}]}]},{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"It is tested %d"}]}]}]}]}`, i, i)
		if err := validateFull(d); err != nil {
			b.Fatal(err)
		}
	}
}
