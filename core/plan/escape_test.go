package plan

import (
	"slices"
	"testing"
)

// Lines the format reads as structure are written escaped, in a form
// CommonMark reads as the same text; everything else is left as it is.
func TestEscapeDescription(t *testing.T) {
	for in, want := range map[string]string{
		"## Notes":                          " ## Notes",
		"### Story s-99: planted":           " ### Story s-99: planted",
		"### Notes":                         "### Notes",
		"#### Sub-task t-9: x":              " #### Sub-task t-9: x",
		"Text\nEpic: e-9":                   "Text\nEpic\\: e-9",
		"Text\nEpic: a sentence":            "Text\nEpic: a sentence",
		"Text\n\nAcceptance criteria:\n- a": "Text\n\nAcceptance criteria\\:\n- a",
		"Text\n\nAcceptance criteria":       "Text\n\n&#65;cceptance criteria",
		"Priority: High\nmore":              "Priority\\: High\nmore",
		"```\n## Story s-1: code\n```":      "```\n## Story s-1: code\n```",
		"> Epic: e-1":                       "> Epic: e-1",
	} {
		if got := EscapeDescription(in); got != want {
			t.Errorf("EscapeDescription(%q) = %q, want %q", in, got, want)
		}
	}
}

// SameItems names an item that reads back differently and one nobody
// wrote.
func TestSameItemsNamesChangedAndPlantedItems(t *testing.T) {
	want := &Document{Items: []Item{{ID: "e-1", Kind: KindEpic, Title: "E"}, {ID: "s-1", Kind: KindStory, Title: "S", Epic: "e-1", Line: 3}}}
	same := &Document{Items: []Item{{ID: "e-1", Kind: KindEpic, Title: "E", Line: 9}, {ID: "s-1", Kind: KindStory, Title: "S", Epic: "e-1"}}}
	if off := SameItems(want, same); len(off) != 0 {
		t.Errorf("SameItems of the same items (lines aside) = %v", off)
	}
	planted := &Document{Items: []Item{{ID: "e-1", Kind: KindEpic, Title: "E"}, {ID: "s-99", Kind: KindStory, Title: "P"}, {ID: "s-1", Kind: KindStory, Title: "S"}}}
	if off := SameItems(want, planted); !slices.Equal(off, []string{"s-1", "s-99"}) {
		t.Errorf("SameItems = %v, want [s-1 s-99] (s-1 moved off its epic, s-99 planted)", off)
	}
}
