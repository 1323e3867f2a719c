package core_test

import (
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// A kind's label is spelled one way everywhere a person reads it, as the
// plan format spells its headings.
func TestKindLabel(t *testing.T) {
	for k, want := range map[core.Kind]string{
		core.KindEpic: "Epic", core.KindStory: "Story", core.KindSubtask: "Sub-task", "": "Item", "bug": "bug",
	} {
		if got := k.Label(); got != want {
			t.Errorf("Kind(%q).Label() = %q, want %q", k, got, want)
		}
	}
}

func TestPositiveOr(t *testing.T) {
	if got := core.PositiveOr(0, 7); got != 7 {
		t.Errorf("PositiveOr(0, 7) = %d", got)
	}
	if got := core.PositiveOr(-1, 7); got != 7 {
		t.Errorf("PositiveOr(-1, 7) = %d", got)
	}
	if got := core.PositiveOr(3, 7); got != 3 {
		t.Errorf("PositiveOr(3, 7) = %d", got)
	}
}

// Closest answers "did you mean" for a near miss, a prefix either way and
// a word in another case, and nothing for a word far from every one known.
func TestClosest(t *testing.T) {
	known := []string{"priority", "labels", "rank"}
	for word, want := range map[string]string{
		"prority": "priority", "Labels": "labels", "ran": "rank", "ranking": "rank", "x": "", "estimate": "",
	} {
		if got := core.Closest(word, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
		}
	}
}
