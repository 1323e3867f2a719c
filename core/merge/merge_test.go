package merge_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/core/merge"
)

// values are drawn from a few letters, so that sides often agree.
var values = rapid.SampledFrom([]string{"a", "b", "c"})

var resolutions = rapid.SampledFrom([]merge.Resolution{merge.Unresolved, merge.ForDocument, merge.ForTracker})

// three draws a document value, a tracker value and a base.
func three(t *rapid.T) (d, tr, b string) {
	return values.Draw(t, "document"), values.Draw(t, "tracker"), values.Draw(t, "base")
}

func TestMergeTable(t *testing.T) {
	for _, c := range []struct {
		d, tr, b string
		r        merge.Resolution
		want     merge.State
	}{
		{"a", "a", "a", merge.Unresolved, merge.Same},
		{"b", "b", "a", merge.Unresolved, merge.Same}, // both changed it the same way
		{"b", "a", "a", merge.Unresolved, merge.Write},
		{"a", "b", "a", merge.Unresolved, merge.Keep},
		{"a", "b", "a", merge.ForDocument, merge.Keep}, // a person's change the document did not touch stays
		{"b", "c", "a", merge.Unresolved, merge.Conflict},
		{"b", "c", "a", merge.ForDocument, merge.TakeDocument},
		{"b", "c", "a", merge.ForTracker, merge.TakeTracker},
	} {
		if got := merge.Of(c.d, c.tr, c.b).Merge(c.r); got != c.want {
			t.Errorf("Of(%q, %q, %q).Merge(%d) = %s, want %s", c.d, c.tr, c.b, c.r, got, c.want)
		}
	}
	if got := merge.Unbased("a", "b").Merge(merge.Unresolved); got != merge.Write {
		t.Errorf("Unbased(a, b) = %s, want write", got)
	}
	if got := merge.Unbased("a", "a").Merge(merge.Unresolved); got != merge.Same {
		t.Errorf("Unbased(a, a) = %s, want same", got)
	}
	names := map[string]bool{}
	for _, s := range merge.States {
		names[s.String()] = true
	}
	if len(names) != len(merge.States) || names["invalid"] {
		t.Errorf("state names %v are not one per state", names)
	}
}

// A side that did not change yields the other side's value.
func TestMergeWithAnUnchangedSideYieldsTheOther(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, tr, b := three(t)
		r := resolutions.Draw(t, "resolution")
		if got, ok := merge.Outcome(merge.Of(d, b, b).Merge(r), d, b); !ok || got != d {
			t.Fatalf("tracker unchanged (%q), document %q: outcome %q (%v), want the document's", b, d, got, ok)
		}
		if got, ok := merge.Outcome(merge.Of(b, tr, b).Merge(r), b, tr); !ok || got != tr {
			t.Fatalf("document unchanged (%q), tracker %q: outcome %q (%v), want the tracker's", b, tr, got, ok)
		}
		// No base: the document's value.
		if got, ok := merge.Outcome(merge.Unbased(d, tr).Merge(r), d, tr); !ok || got != d {
			t.Fatalf("no base, document %q, tracker %q: outcome %q (%v), want the document's", d, tr, got, ok)
		}
	})
}

// Swapping the document and the tracker swaps what the merge says of them:
// a conflict stays a conflict, Write and Keep swap, and so do the
// resolutions.
func TestConflictsAreSymmetric(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, tr, b := three(t)
		r := resolutions.Draw(t, "resolution")
		s, m := merge.Of(d, tr, b), merge.Of(tr, d, b)
		if s.Mirror() != m {
			t.Fatalf("Of(%q, %q, %q).Mirror() = %+v, want %+v", d, tr, b, s.Mirror(), m)
		}
		if (s.Merge(merge.Unresolved) == merge.Conflict) != (m.Merge(merge.Unresolved) == merge.Conflict) {
			t.Fatalf("Of(%q, %q, %q) is %s but swapped %s", d, tr, b, s.Merge(merge.Unresolved), m.Merge(merge.Unresolved))
		}
		if got, want := m.Merge(r.Mirror()), s.Merge(r).Mirror(); got != want {
			t.Fatalf("swapped Of(%q, %q, %q) resolved %d: %s, want %s", d, tr, b, r, got, want)
		}
		if got, ok := merge.Outcome(s.Merge(r), d, tr); ok {
			if again, _ := merge.Outcome(m.Merge(r.Mirror()), tr, d); again != got {
				t.Fatalf("Of(%q, %q, %q): outcome %q, swapped %q", d, tr, b, got, again)
			}
		}
	})
}

// Merging the outcome again changes nothing: with either side replaced by
// the outcome (as the import writes it to the tracker, the pull into the
// document) the merge yields the same outcome; with both and the base
// moved to it, Same.
func TestMergeIsIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, tr, b := three(t)
		r := resolutions.Draw(t, "resolution")
		s := merge.Of(d, tr, b).Merge(r)
		v, ok := merge.Outcome(s, d, tr)
		if !ok {
			if again := merge.Of(d, tr, b).Merge(r); again != merge.Conflict {
				t.Fatalf("an unresolved conflict merged again: %s", again)
			}
			return
		}
		if got, _ := merge.Outcome(merge.Of(d, v, b).Merge(r), d, v); got != v {
			t.Fatalf("Of(%q, %q, %q) = %s (%q); with the tracker at %q: %q", d, tr, b, s, v, v, got)
		}
		if got, _ := merge.Outcome(merge.Of(v, tr, b).Merge(r), v, tr); got != v {
			t.Fatalf("Of(%q, %q, %q) = %s (%q); with the document at %q: %q", d, tr, b, s, v, v, got)
		}
		if got := merge.Of(v, v, values.Draw(t, "new base")).Merge(r); got != merge.Same {
			t.Fatalf("both sides at the outcome %q: %s, want same", v, got)
		}
	})
}

// A resolution changes conflicts only, and takes the side it names.
func TestResolutionOnlyChangesConflicts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, tr, b := three(t)
		s := merge.Of(d, tr, b)
		if rapid.Bool().Draw(t, "unbased") {
			s = merge.Unbased(d, tr)
		}
		plain := s.Merge(merge.Unresolved)
		if plain == merge.TakeDocument || plain == merge.TakeTracker {
			t.Fatalf("unresolved merge of %+v: %s", s, plain)
		}
		for _, c := range []struct {
			r    merge.Resolution
			want merge.State
		}{{merge.ForDocument, merge.TakeDocument}, {merge.ForTracker, merge.TakeTracker}} {
			got := s.Merge(c.r)
			switch {
			case plain != merge.Conflict && got != plain:
				t.Fatalf("%+v resolved %d: %s, unresolved %s (not a conflict: it must not change)", s, c.r, got, plain)
			case plain == merge.Conflict && got != c.want:
				t.Fatalf("conflict %+v resolved %d: %s, want %s", s, c.r, got, c.want)
			}
			if got.Conflicted() != (plain == merge.Conflict) {
				t.Fatalf("%+v resolved %d: %s says conflicted %v", s, c.r, got, got.Conflicted())
			}
		}
	})
}
