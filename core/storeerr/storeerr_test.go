package storeerr

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

func TestCodes(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		err      *core.Error
		code     core.Code
		mentions string
	}{
		{PreviewNotFound("h1"), core.CodePreviewNotFound, "h1"},
		{PreviewConsumed("h2", "run-9", at), core.CodePreviewNotFound, "run-9"},
		{PreviewConsumed("h2", "", at), core.CodePreviewNotFound, "earlier commit run"},
		{PreviewExpired("h3", at), core.CodePreviewExpired, "2026-01-02T03:04:05Z"},
		{PreviewTampered("h4"), core.CodeInternal, "h4"},
		{KeyReused("k", "h-old", "h-new"), core.CodeIdempotencyKeyReused, "h-old"},
		{DuplicateHandle("h5"), core.CodeInternal, "h5"},
		{RunNotFound("k2"), core.CodeInternal, "k2"},
		{RunFinished("k3", core.RunCommitted), core.CodeInternal, "committed"},
		{Closed("SQLite"), core.CodeInternal, "SQLite"},
		{Fault(errors.New("driver: secret detail"), "SQLite", "save"), core.CodeInternal, "save"},
		{LockLost("doc", "a", 3, "b", 4), core.CodeInternal, "b holds it now (generation 4)"},
		{LockLost("doc", "a", 3, "", 3), core.CodeInternal, "free"},
	}
	for _, tc := range tests {
		if tc.err.Code != tc.code || tc.err.Retryable != tc.code.Retryable() {
			t.Errorf("%v: code %s retryable %v, want %s", tc.err, tc.err.Code, tc.err.Retryable, tc.code)
		}
		text := tc.err.Message
		for _, d := range tc.err.Details {
			text += " " + d.Message
		}
		if !strings.Contains(text, tc.mentions) {
			t.Errorf("%v does not mention %q", tc.err, tc.mentions)
		}
		if strings.Contains(tc.err.Message, "secret detail") {
			t.Errorf("driver text leaked into the message: %v", tc.err)
		}
	}
}

func TestChecks(t *testing.T) {
	ok := core.Preview{Handle: "h", Kind: core.PreviewProgress}
	if got, err := CheckPreview(ok); err != nil || got.Plan == nil || got.Digest != core.PlanDigest(nil) {
		t.Fatalf("CheckPreview = %+v, %v", got, err)
	}
	for _, p := range []core.Preview{{Kind: core.PreviewImport}, {Handle: "h", Kind: "x"}, {Handle: strings.Repeat("h", 201), Kind: core.PreviewImport}} {
		if _, err := CheckPreview(p); core.ErrorCode(err) != core.CodeInternal {
			t.Errorf("CheckPreview(%+v) accepted", p)
		}
	}
	for _, s := range []core.RunState{core.RunCommitted, core.RunPartial, core.RunFailed} {
		if err := CheckFinalState(s); err != nil {
			t.Errorf("CheckFinalState(%s): %v", s, err)
		}
	}
	if core.ErrorCode(CheckFinalState(core.RunInProgress)) != core.CodeInternal {
		t.Error("CheckFinalState(in_progress) accepted")
	}
}

func TestSchemaTooNew(t *testing.T) {
	err := SchemaTooNew("The test store", 5, 3, "use another one")
	if err.Code != core.CodeConfigInvalid || !strings.Contains(err.Message, "version 5") || !strings.Contains(err.Message, "(3)") ||
		!strings.Contains(err.Message, "use another one") || err.Details[0].Field != "store" {
		t.Fatalf("SchemaTooNew = %+v", err)
	}
}
