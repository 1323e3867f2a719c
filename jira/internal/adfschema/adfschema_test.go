package adfschema

import "testing"

func TestValidate(t *testing.T) {
	valid := `{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"hi","marks":[{"type":"strong"}]}]}]}`
	if err := Validate([]byte(valid)); err != nil {
		t.Fatalf("valid doc rejected: %v", err)
	}
	for name, doc := range map[string]string{
		"no version":      `{"type":"doc","content":[]}`,
		"unknown node":    `{"version":1,"type":"doc","content":[{"type":"blink"}]}`,
		"text at top":     `{"version":1,"type":"doc","content":[{"type":"text","text":"x"}]}`,
		"not json":        `{`,
		"empty text node": `{"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":""}]}]}`,
	} {
		if err := Validate([]byte(doc)); err == nil {
			t.Errorf("%s: invalid doc accepted", name)
		}
	}
}
