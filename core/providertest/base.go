package providertest

import (
	"maps"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// testRecordBase: after a person's edit, RecordBase with a fingerprint
// the item no longer has records nothing (PREVIEW_STALE); with the item's
// fingerprint it records the spec's digest and bases and takes the
// item's content as DevWorkWire's (no longer edited outside), changing
// nothing of the item itself.
func testRecordBase(t *testing.T, s *suite) {
	br := capability[core.BaseRecorder](t, s, "core.BaseRecorder")
	spec := s.spec(core.KindStory, "s-1", "Written by DevWorkWire", "", "")
	key := s.create(t, spec)[0]
	if err := s.EditTitle(s.ctx, key, "Renamed by a person"); err != nil {
		t.Fatal(err)
	}
	w := s.get(t, key)
	if !w.EditedOutside {
		t.Fatalf("precondition: %s is not edited outside after a person's edit", key)
	}
	base := spec
	base.Title = w.Title
	base.Digest = core.ContentDigest(w.Kind, w.Title, w.Description, w.AcceptanceCriteria, "")
	base.FieldBases = core.ContentDigests(w.Title, w.Description, w.AcceptanceCriteria)
	err := br.RecordBase(s.ctx, key, w.Fingerprint+"-stale", base)
	if core.ErrorCode(err) != core.CodePreviewStale {
		t.Fatalf("RecordBase with a stale fingerprint = %v; want PREVIEW_STALE", err)
	}
	if again := s.get(t, key); !again.EditedOutside || again.LastWritten != spec.Digest {
		t.Fatalf("a refused RecordBase recorded something: edited outside %v, last written %q", again.EditedOutside, again.LastWritten)
	}
	if err := br.RecordBase(s.ctx, key, w.Fingerprint, base); err != nil {
		t.Fatalf("RecordBase: %v", err)
	}
	after := s.get(t, key)
	if after.EditedOutside || after.LastWritten != base.Digest || !maps.Equal(after.FieldBases, base.FieldBases) {
		t.Errorf("after RecordBase: edited outside %v, last written %q (want %q), bases %v (want %v)", after.EditedOutside, after.LastWritten, base.Digest, after.FieldBases, base.FieldBases)
	}
	for k, changed := range after.ContentChanged {
		if changed {
			t.Errorf("after RecordBase, %s reads as changed in the tracker", k)
		}
	}
	if after.Title != "Renamed by a person" || after.Description != w.Description {
		t.Errorf("RecordBase changed the item: title %q, description %q", after.Title, after.Description)
	}
}
