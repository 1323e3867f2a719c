package jira

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// Without the global Browse users and groups permission Jira's user search
// answers no one: a user-picker value is refused naming the permission,
// not as "no active user" (every person would read so).
func TestUserPickerWithoutBrowseUsersNamesThePermission(t *testing.T) {
	f := companySite(t, nil)
	if err := f.srv.SetProfile(jiratest.SiteProfile{Profile: jiratest.Profile{DeniedPermissions: []string{jiratest.PermUserPicker}}}); err != nil {
		t.Fatal(err)
	}
	req := core.FieldRequest{Reference: "u/s-1", Kind: core.KindStory, Fields: map[string]core.FieldValue{"fields.Reviewer": fv("ana@example.com")}}
	_, err := f.p.ResolveFields(f.ctx, []core.FieldRequest{req})
	ce := core.AsError(err)
	if ce == nil || ce.Code != core.CodeJiraPermissionDenied || !strings.Contains(ce.Message, "Browse users and groups") || len(ce.Details) != 1 || ce.Details[0].Field != "USER_PICKER" {
		t.Fatalf("a reviewer without Browse users and groups: %v", err)
	}
	if len(f.srv.Writes()) != 0 {
		t.Error("resolution wrote to Jira")
	}
}
