package core_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// TestNextStepTakesThePlaceOfTheAdvice: a front door's next step stands
// where the message advised a new preview in no door's words (marked
// Rerun), and is appended when nothing is marked; the original error is
// not changed.
func TestNextStepTakesThePlaceOfTheAdvice(t *testing.T) {
	const step = "Next: run `x` again."
	for _, c := range []struct {
		msg, rerun, want string
	}{
		{"Changed. Nothing was written. Run the import preview again to get a current plan.", "Run the import preview again to get a current plan",
			"Changed. Nothing was written. Next: run `x` again."},
		{"Died. Run the import preview again: items already written are found.", "Run the import preview again",
			"Died. Next: run `x` again: items already written are found."},
		{"Check it, then run the progress preview again for what is left.", "run the progress preview again",
			"Check it, then run `x` again for what is left."},
		{"Something else went wrong.", "", "Something else went wrong. Next: run `x` again."},
		{"Run the pull again.", "not in the message", "Run the pull again. Next: run `x` again."},
	} {
		e := core.Errorf(core.CodePreviewStale, "%s", c.msg).WithRerun(c.rerun)
		got := e.WithNextStep(step)
		if got.Message != c.want {
			t.Errorf("%q marked %q: %q; want %q", c.msg, c.rerun, got.Message, c.want)
		}
		if got.Rerun != "" {
			t.Errorf("%q: the step's message still marks %q", c.msg, got.Rerun)
		}
		if e.Message != c.msg {
			t.Errorf("the error itself was changed: %q", e.Message)
		}
	}
}

// TestRerunIsStoredButNotSaid: the marked advice is not part of the
// contract's payload, and a stored run's result keeps it for a replay.
func TestRerunIsStoredButNotSaid(t *testing.T) {
	e := core.RefuseUnknownPreview("imp_1", core.PreviewImport)
	if e.Rerun == "" || !strings.Contains(e.Message, e.Rerun) {
		t.Fatalf("unknown handle: advice %q not marked in %q", e.Rerun, e.Message)
	}
	b, err := json.Marshal(e)
	if err != nil || strings.Contains(string(b), "rerun") {
		t.Errorf("payload %s (%v) carries the mark", b, err)
	}
	s, err := e.MarshalStored()
	if err != nil {
		t.Fatal(err)
	}
	var back core.Error
	if err := json.Unmarshal(s, &back); err != nil || back.Rerun != e.Rerun || back.Message != e.Message {
		t.Errorf("stored %s read back as %+v (%v)", s, back, err)
	}
}

// TestGateRefusalsMarkTheirAdvice: every refusal of a handle that asks for
// a new preview marks the advice a front door replaces.
func TestGateRefusalsMarkTheirAdvice(t *testing.T) {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for name, e := range map[string]*core.Error{
		"unknown":  core.RefuseUnknownPreview("h", core.PreviewProgress),
		"expired":  core.RefuseExpiredPreview("h", core.PreviewImport, at, time.Hour, at.Add(time.Minute)),
		"consumed": core.RefuseConsumedPreview("h", core.PreviewPull, at, "commit run r"),
		"changed":  core.RefusePlanChanged("h", core.PreviewImport, "sha256:a", "sha256:b"),
	} {
		if !core.AsksForNewPreview(e.Code) || e.Rerun == "" || !strings.Contains(e.Message, e.Rerun) {
			t.Errorf("%s: %s %q marks %q", name, e.Code, e.Message, e.Rerun)
		}
		if got := e.WithNextStep("Next: go."); strings.Contains(got.Message, "preview again") {
			t.Errorf("%s: the advice stays beside the step: %q", name, got.Message)
		}
	}
}
