package core_test

import (
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// A preview whose planned writes need a permission the account lacks is
// refused at the preview, naming the permission — not after the prompt at
// commit (issue 19 #4). A preview that writes nothing needs none.
func TestPreviewChecksThePermissionsItsWritesNeed(t *testing.T) {
	e := newEnv(t)
	e.p.Deny(core.PermissionCreate)
	_, err := e.svc.ImportPreview(e.ctx, core.ImportPreviewInput{Path: "plan.md", Data: []byte(checkoutDoc())})
	ce := core.AsError(err)
	if ce == nil || ce.Code != core.CodeJiraPermissionDenied || len(ce.Details) != 1 || ce.Details[0].Field != string(core.PermissionCreate) {
		t.Fatalf("preview without Create: %v", err)
	}
	if e.p.Writes() != 0 {
		t.Fatal("the refused preview wrote")
	}

	e = newEnv(t)
	e.importDoc(checkoutDoc())
	e.p.Deny(core.PermissionCreate, core.PermissionEdit, core.PermissionComment)
	if r := e.preview(checkoutDoc()); r.Counts.Unchanged == 0 || r.Counts.Create+r.Counts.Update != 0 {
		t.Fatalf("unchanged re-import: %+v", r.Counts)
	}
	key := ""
	for _, w := range e.p.Items() {
		key = w.Key
		break
	}
	_, err = e.svc.ProgressPreview(e.ctx, core.ProgressPreviewInput{Item: key, Comment: "done"})
	if ce := core.AsError(err); ce == nil || ce.Code != core.CodeJiraPermissionDenied || ce.Details[0].Field != string(core.PermissionComment) {
		t.Fatalf("comment without Add Comments: %v", err)
	}
	if _, err := e.svc.ProgressPreview(e.ctx, core.ProgressPreviewInput{Item: key, Status: core.StatusDone}); err != nil {
		t.Fatalf("a transition needs only Transition Issues: %v", err)
	}
}
