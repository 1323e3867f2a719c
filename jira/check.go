package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// Check verifies credentials, the project permissions DevWorkWire needs,
// the project, the issue types and the reference field. Discovery runs
// again (it is cheap and Check is explicit).
func (p *Provider) Check(ctx context.Context) error {
	ctx, done := p.observe(ctx, "Check")
	defer done()
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/myself", endpoint: "GET /rest/api/3/myself", action: "read your Jira account"}, nil); err != nil {
		return p.notCloud(ctx, err)
	}
	if err := p.checkPermissions(ctx, requiredPermissions); err != nil {
		return err
	}
	return p.CheckSetup(ctx)
}

// CheckSetup checks what Check checks after the account and its
// permissions: the issue types (and what their create screens require),
// the reference field, and the edit screen of the project's newest work
// item. It needs the Browse, Create and Edit permissions only (Jira's
// create and edit metadata list nothing without them), so `dwire doctor`
// runs it when only other permissions are missing. Reads only.
func (p *Provider) CheckSetup(ctx context.Context) error {
	m, err := p.discover(ctx)
	if err != nil {
		return err
	}
	if err := p.checkEditScreen(ctx, m); err != nil {
		return err
	}
	p.metaMu.Lock()
	p.meta = m
	p.metaMu.Unlock()
	return nil
}

// requiredPermissions are the project permissions DevWorkWire uses, with
// what each is needed for.
// permission is a Jira project permission dwire needs, with its name and
// what it is for.
type permission struct{ key, name, use string }

// global reports whether the permission is a global one (granted in
// Jira's global permissions, not the project's permission scheme).
func (pm permission) global() bool { return pm.key == browseUsers.key }

var requiredPermissions = []permission{
	{"BROWSE_PROJECTS", "Browse Projects", "find and read work items"},
	{"CREATE_ISSUES", "Create Issues", "create work items on import"},
	{"EDIT_ISSUES", "Edit Issues", "update work items on re-import"},
	{"TRANSITION_ISSUES", "Transition Issues", "change a work item's status"},
	{"ADD_COMMENTS", "Add Comments", "comment on work items"},
	{"LINK_ISSUES", "Link Issues", "link dependencies"},
	{"SCHEDULE_ISSUES", "Schedule Issues", "set sprints and rank"},
}

// browseUsers is the global permission a user picker's search needs:
// without it Jira's user search answers no one (fields.go).
var browseUsers = permission{"USER_PICKER", "Browse users and groups", "find the people named in user-picker fields"}

const permissionsEndpoint = "GET /rest/api/3/mypermissions"

var _ core.PermissionChecker = (*Provider)(nil)

// CheckPermissions implements core.PermissionChecker: the permissions a
// preview's planned writes need, asked of Jira in one request.
func (p *Provider) CheckPermissions(ctx context.Context, perms []core.Permission) error {
	var want []permission
	for _, pm := range perms {
		for _, rp := range requiredPermissions {
			if rp.key == string(pm) {
				want = append(want, rp)
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	return p.checkPermissions(ctx, want)
}

// checkPermissions asks Jira which of the permissions the account has in
// the project and reports the missing ones as JIRA_PERMISSION_DENIED,
// naming each permission and the project.
func (p *Provider) checkPermissions(ctx context.Context, required []permission) error {
	keys := make([]string, len(required))
	for i, rp := range required {
		keys[i] = rp.key
	}
	var resp struct {
		Permissions map[string]struct {
			HavePermission *bool `json:"havePermission"`
		} `json:"permissions"`
	}
	q := url.Values{"projectKey": {p.cfg.Project}, "permissions": {strings.Join(keys, ",")}}
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/mypermissions", query: q, endpoint: permissionsEndpoint, action: "read your permissions in project " + p.cfg.Project}, &resp); err != nil {
		return err
	}
	var missing []string
	var details []core.Detail
	for _, rp := range required {
		got, ok := resp.Permissions[rp.key]
		if ok && got.HavePermission != nil && *got.HavePermission {
			continue
		}
		if rp.global() {
			return core.Errorf(core.CodeJiraPermissionDenied, "Your Jira account (%s) lacks the global permission %s (%s), needed to %s: without it Jira's user search finds no one. Ask a Jira administrator to grant it (Settings → System → Global permissions), or map each person to an account id under users: in the configuration.",
				p.cfg.Email, rp.key, rp.name, rp.use).WithDetails(core.Detail{Field: rp.key, Message: "missing (global): needed to " + rp.use})
		}
		missing = append(missing, fmt.Sprintf("%s (%s: to %s)", rp.key, rp.name, rp.use))
		details = append(details, core.Detail{Field: rp.key, Message: fmt.Sprintf("missing in project %s: needed to %s", p.cfg.Project, rp.use)})
	}
	if len(missing) == 0 {
		return nil
	}
	p.logFor(ctx).Warn("jira permissions missing", "project", p.cfg.Project, "missing", len(missing))
	return core.Errorf(core.CodeJiraPermissionDenied, "Your Jira account (%s) lacks %s in project %s: %s. Ask a Jira administrator of project %s to grant them (Project settings → Permissions).",
		p.cfg.Email, plural(len(missing), "this permission", "these permissions"), p.cfg.Project, strings.Join(missing, "; "), p.cfg.Project).WithDetails(details...)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkEditScreen reads the edit screen (editmeta) of the project's newest
// work item, if it has one: the reference field must be on it, or every
// re-import's update of a work item of that type would be refused. It
// costs two reads, so only Check (doctor, init) makes it.
func (p *Provider) checkEditScreen(ctx context.Context, m *meta) error {
	var found searchResponse
	req := searchRequest{JQL: p.projectClause() + " ORDER BY created DESC", Fields: []string{"issuetype"}, Properties: []string{}, MaxResults: 1}
	if _, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/search/jql", body: req, class: retryIdempotent, endpoint: searchEndpoint, action: "find a work item of project " + p.cfg.Project + " to read its edit screen"}, &found); err != nil {
		return err
	}
	if len(found.Issues) == 0 {
		return nil // nothing to edit yet
	}
	is := found.Issues[0]
	var meta struct {
		Fields map[string]json.RawMessage `json:"fields"`
	}
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/issue/" + url.PathEscape(is.ID) + "/editmeta", key: is.Key, endpoint: "GET /rest/api/3/issue/{key}/editmeta", action: "read the edit screen of " + is.Key}, &meta); err != nil {
		return err
	}
	ref := m.refFieldFor(is.typeID())
	if _, ok := meta.Fields[ref]; ok || ref == "" {
		return nil // "": a type DevWorkWire does not write
	}
	var t struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(is.Fields["issuetype"], &t)
	return refMissing(fmt.Sprintf("The reference field %q (%s) is not on the edit screen of %s issues in project %s (checked on %s), so DevWorkWire could not update them. In Jira, add the field to that issue type's edit screen (Project settings → Issue types → %s → Fields, or the project's screen scheme), then run `dwire doctor` again.",
		m.refName, ref, orUnknown(t.Name), p.cfg.Project, is.Key, orUnknown(t.Name)))
}
