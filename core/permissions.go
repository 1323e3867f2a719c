package core

import "context"

// Permission names a tracker permission a planned write needs. The values
// are Jira's permission keys, which the provider reports as the Field of
// each detail of a JIRA_PERMISSION_DENIED.
type Permission string

// The permissions the planned writes need.
const (
	PermissionCreate     Permission = "CREATE_ISSUES"
	PermissionEdit       Permission = "EDIT_ISSUES"
	PermissionTransition Permission = "TRANSITION_ISSUES"
	PermissionComment    Permission = "ADD_COMMENTS"
	// PermissionLink is Jira's "Link issues": dependency links.
	PermissionLink Permission = "LINK_ISSUES"
	// PermissionSchedule is Jira's "Schedule issues": sprint and rank.
	PermissionSchedule Permission = "SCHEDULE_ISSUES"
)

// PermissionChecker is the provider capability a preview uses to refuse,
// before anyone is asked to confirm, a plan the account could not write.
// The Jira adapter and core/fakeprovider have it; a provider without it is
// not checked (its commit reports the refusal).
type PermissionChecker interface {
	// CheckPermissions returns nil when the account holds every one of
	// perms in the project, else JIRA_PERMISSION_DENIED naming each missing
	// permission (one detail per permission, Field = its key). Reads only.
	CheckPermissions(ctx context.Context, perms []Permission) error
}

// checkPermissions refuses a plan whose writes need permissions the
// account lacks: better at the preview than after a prompt.
func (s *WorkItemService) checkPermissions(ctx context.Context, perms ...Permission) error {
	pc, ok := s.p.(PermissionChecker)
	if !ok || len(perms) == 0 {
		return nil
	}
	return pc.CheckPermissions(ctx, perms)
}

// importPermissions are the permissions the entries' writes and the
// structure plans' links, sprint moves and ranks need.
func importPermissions(entries []planEntry, structures []docStructure) []Permission {
	var create, edit, closes, link, schedule bool
	for _, ds := range structures {
		sp := ds.Plan
		if sp == nil {
			continue
		}
		link = link || len(sp.Links)+len(sp.Unlinks) > 0
		schedule = schedule || len(sp.Sprints)+len(sp.Ranks) > 0
	}
	for _, e := range entries {
		if e.Blocked {
			continue
		}
		switch e.Action {
		case ActionCreate:
			create = true
		case ActionUpdate, ActionAdopt:
			edit = true
		case ActionClose: // removed.go
			closes = true
		}
	}
	var out []Permission
	if create {
		out = append(out, PermissionCreate)
	}
	if edit {
		out = append(out, PermissionEdit)
	}
	if closes {
		out = append(out, PermissionTransition, PermissionComment)
	}
	if link {
		out = append(out, PermissionLink)
	}
	if schedule {
		out = append(out, PermissionSchedule)
	}
	return out
}

// progressPermissions are the permissions a progress plan's writes need.
func progressPermissions(pl *progressPlan) []Permission {
	var out []Permission
	if pl.TransitionID != "" {
		out = append(out, PermissionTransition)
	}
	if pl.Comment != "" {
		out = append(out, PermissionComment)
	}
	return out
}
