// Package merge is DevWorkWire's three-way merge of one part of a work
// item — a managed field, the title, the description or the acceptance
// criteria — between the planning document, the tracker, and the base
// (what DevWorkWire last wrote to the tracker).
//
// It is the one rule the import (its fields and its content) and the pull
// follow; each of them does its own thing with the outcome (the import
// writes the document's value to the tracker, the pull writes the
// tracker's into the document). It is pure: no I/O, no tracker or store
// vocabulary, nothing but the comparison.
//
//	document vs tracker | document vs base | tracker vs base | State
//	equal               | —                | —               | Same
//	differ              | changed          | unchanged       | Write (the document's)
//	differ              | unchanged        | changed         | Keep (the tracker's: a person's change)
//	differ              | changed          | changed         | Conflict, or its resolution
//
// A part with no base (never written by DevWorkWire, or written before
// bases were kept) counts as changed in the document only: Write.
//
// Resolutions ("Drift: take-document" on an import; take_document /
// take_tracker on a pull) change conflicts only: a person's change the
// document did not touch is kept whatever the resolution says.
package merge

// State is what the merge makes of one part.
type State uint8

// The states of a part.
const (
	// Same: the document and the tracker hold the same value; nothing to
	// write on either side (the base may move forward to it).
	Same State = iota + 1
	// Write: only the document changed the part (or it has no base): the
	// document's value is the outcome.
	Write
	// Keep: only the tracker changed it (a person did): the tracker's
	// value is the outcome.
	Keep
	// Conflict: both changed it, differently: neither value is taken.
	Conflict
	// TakeDocument: a conflict resolved for the document's value.
	TakeDocument
	// TakeTracker: a conflict resolved for the tracker's value.
	TakeTracker
)

// States are every State, in order.
var States = []State{Same, Write, Keep, Conflict, TakeDocument, TakeTracker}

// String names the state (for messages and tests).
func (s State) String() string {
	switch s {
	case Same:
		return "same"
	case Write:
		return "write"
	case Keep:
		return "keep"
	case Conflict:
		return "conflict"
	case TakeDocument:
		return "take-document"
	case TakeTracker:
		return "take-tracker"
	}
	return "invalid"
}

// Document reports whether the document's value is the outcome (Same
// included: both sides hold it).
func (s State) Document() bool { return s == Same || s == Write || s == TakeDocument }

// Tracker reports whether the tracker's value is the outcome (Same
// included).
func (s State) Tracker() bool { return s == Same || s == Keep || s == TakeTracker }

// Conflicted reports whether both sides changed the part, differently:
// Conflict and the resolutions of one.
func (s State) Conflicted() bool { return s == Conflict || s == TakeDocument || s == TakeTracker }

// Resolution is how a conflict is resolved.
type Resolution uint8

// The resolutions; the zero value leaves a conflict as it is.
const (
	Unresolved  Resolution = iota
	ForDocument            // take the document's value
	ForTracker             // take the tracker's value
)

// Sides is what is known of one part: whether the document's value is the
// tracker's, and which sides changed it since the base.
type Sides struct {
	Same            bool // the document's value is the tracker's
	DocumentChanged bool // the document's value is not the base (true when there is no base)
	TrackerChanged  bool // the tracker's value is not the base (false when there is no base)
}

// Of compares one part's three values (digests, say): the document's, the
// tracker's and the base.
func Of[V comparable](document, tracker, base V) Sides {
	return Sides{Same: document == tracker, DocumentChanged: document != base, TrackerChanged: tracker != base}
}

// Unbased compares a part that has no base: only the document counts as
// changed.
func Unbased[V comparable](document, tracker V) Sides {
	return Sides{Same: document == tracker, DocumentChanged: true}
}

// Mirror swaps the two sides (the merge seen from the tracker's side).
func (s Sides) Mirror() Sides {
	return Sides{Same: s.Same, DocumentChanged: s.TrackerChanged, TrackerChanged: s.DocumentChanged}
}

// Merge settles the part: Same, Write, Keep, or Conflict unless r
// resolves it (TakeDocument, TakeTracker). r changes conflicts only.
func (s Sides) Merge(r Resolution) State {
	switch {
	case s.Same:
		return Same
	case !s.TrackerChanged:
		return Write
	case !s.DocumentChanged:
		return Keep
	case r == ForDocument:
		return TakeDocument
	case r == ForTracker:
		return TakeTracker
	}
	return Conflict
}

// Mirror is the state seen from the other side: Write and Keep swap, and
// so do the two resolutions.
func (s State) Mirror() State {
	switch s {
	case Write:
		return Keep
	case Keep:
		return Write
	case TakeDocument:
		return TakeTracker
	case TakeTracker:
		return TakeDocument
	}
	return s
}

// Mirror is the resolution seen from the other side.
func (r Resolution) Mirror() Resolution {
	switch r {
	case ForDocument:
		return ForTracker
	case ForTracker:
		return ForDocument
	}
	return r
}

// Outcome is the part's value after the merge, and false for an
// unresolved conflict (neither value is taken).
func Outcome[V any](s State, document, tracker V) (V, bool) {
	switch {
	case s.Document():
		return document, true
	case s.Tracker():
		return tracker, true
	}
	var none V
	return none, false
}
