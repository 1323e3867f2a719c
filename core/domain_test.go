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
