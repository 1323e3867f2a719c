package service

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/core"
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

// What contentBases derived is taken as known only while the spec's
// content is what it was derived from: a title, description or criterion
// changed since (criteria even in place) is digested again, so bases that
// no longer match are stored in full, never left out.
func TestKnownDerivedBasesFollowTheSpec(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		long := strings.Repeat("x", core.MaxBaseValue) // a base value kept as its digest only
		text := rapid.SampledFrom([]string{"", "a", "b", " a ", "<&>", long, long + "y"})
		spec := core.ItemSpec{Title: text.Draw(t, "title"), Description: text.Draw(t, "description"),
			AcceptanceCriteria: rapid.SliceOfN(text, 0, 3).Draw(t, "criteria")}
		known := contentBases(&spec)
		if !hasDerivedBases(&spec, &known) || !hasDerivedBases(&spec, nil) {
			t.Fatalf("the bases just derived for %+v are not taken as derived", spec)
		}
		switch rapid.IntRange(0, 3).Draw(t, "change") {
		case 0:
			spec.Title = text.Draw(t, "new title")
		case 1:
			spec.Description = text.Draw(t, "new description")
		case 2:
			if len(spec.AcceptanceCriteria) > 0 {
				spec.AcceptanceCriteria[0] = text.Draw(t, "new criterion") // in place
			}
		case 3:
			spec.AcceptanceCriteria = append(spec.AcceptanceCriteria, text.Draw(t, "one more"))
		}
		if got, want := hasDerivedBases(&spec, &known), hasDerivedBases(&spec, nil); got != want {
			t.Fatalf("after a change, with what was derived: %v; digesting again: %v (%+v)", got, want, spec)
		}
	})
}
