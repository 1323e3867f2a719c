package service_test

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// A preview whose planned writes need a permission the account lacks is
// refused at the preview, naming the permission — not after the prompt at
// commit. A preview that writes nothing needs none.
func TestPreviewChecksThePermissionsItsWritesNeed(t *testing.T) {
	e := newEnv(t)
	e.p.Deny(core.PermissionCreate)
	_, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(checkoutDoc())})
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
	_, err = e.svc.ProgressPreview(e.ctx, service.ProgressPreviewInput{Item: key, Comment: "done"})
	if ce := core.AsError(err); ce == nil || ce.Code != core.CodeJiraPermissionDenied || ce.Details[0].Field != string(core.PermissionComment) {
		t.Fatalf("comment without Add Comments: %v", err)
	}
	if _, err := e.svc.ProgressPreview(e.ctx, service.ProgressPreviewInput{Item: key, Status: core.StatusDone}); err != nil {
		t.Fatalf("a transition needs only Transition Issues: %v", err)
	}
}

// Dependencies need Link issues and sprints and rank need Schedule issues:
// a plan with them is refused at the preview, naming the permission, with
// nothing written — not half-way through the commit.
func TestPreviewChecksLinkAndSchedulePermissions(t *testing.T) {
	for _, pm := range []core.Permission{core.PermissionLink, core.PermissionSchedule} {
		e := newEnv(t)
		e.p.Deny(pm)
		_, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(structureDoc)})
		ce := core.AsError(err)
		if ce == nil || ce.Code != core.CodeJiraPermissionDenied || len(ce.Details) != 1 || ce.Details[0].Field != string(pm) {
			t.Fatalf("preview of dependencies and a sprint without %s: %v", pm, err)
		}
		if e.p.Writes() != 0 {
			t.Fatalf("the preview refused for %s wrote", pm)
		}
	}
	// A plan without dependencies, sprint or rank does not need them.
	e := newEnv(t)
	e.p.Deny(core.PermissionLink, core.PermissionSchedule)
	plain := strings.NewReplacer("Depends on: s-1\n", "", "Sprint: DEMO Sprint 2\n", "", "Blocks: s-2\n", "").Replace(structureDoc)
	if _, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: "plan.md", Data: []byte(plain)}); err != nil && core.ErrorCode(err) == core.CodeJiraPermissionDenied {
		t.Fatalf("a plan without links, sprint or rank: %v", err)
	}
}
