package service

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// jsonBound is never below the JSON length of the values: setBaseValue
// skips encoding only values that surely fit.
func TestJSONBoundIsAnUpperBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOf(rapid.OneOf(rapid.String(), rapid.StringOf(rapid.SampledFrom([]rune{'<', '&', '"', '\\', '\n', '\u2028', 'é', 'a'})),
			rapid.Custom(func(t *rapid.T) string { return string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes")) }))).Draw(t, "vals")
		if rapid.Bool().Draw(t, "nil") && len(vals) == 0 {
			vals = nil
		}
		b, _ := json.Marshal(vals)
		if jsonBound(vals) < len(b) {
			t.Fatalf("jsonBound(%q) = %d < %d", vals, jsonBound(vals), len(b))
		}
	})
}
