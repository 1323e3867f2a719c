package service

import (
	"context"
	"sync"

	"github.com/devworkwire/devworkwire/core"
)

// checkPermissions refuses a plan whose writes need permissions the
// account lacks: better at the preview than after a prompt.
//
// The commit of the plan names, in the audit trail, the account it writes
// as (knownAccount). When neither the provider's answers so far nor the
// audit trail can name it, a preview that plans writes reads it alongside
// the permission check (so in the same round trip): a provider keeps it
// (jira reads it once per process), so the commit that follows in this
// process sends no request for it. A preview no commit in this process
// follows (dryRun: a front door's --dry-run) leaves it alone. A failed
// read is left to the commit, which reads it again.
func (s *WorkItemService) checkPermissions(ctx context.Context, dryRun bool, perms ...core.Permission) error {
	pc, ok := s.p.(core.PermissionChecker)
	if !ok || len(perms) == 0 {
		return nil
	}
	var wg sync.WaitGroup
	if ar, ok := s.p.(core.AccountReader); ok && !dryRun && s.audits() != nil {
		if _, known := s.knownAccount(ctx); !known {
			wg.Go(func() { _, _ = ar.Account(ctx) })
		}
	}
	err := pc.CheckPermissions(ctx, perms)
	wg.Wait()
	return err
}

// importPermissions are the permissions the entries' writes and the
// structure plans' links, sprint moves and ranks need.
func importPermissions(entries []planEntry, structures []docStructure) []core.Permission {
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
		case core.ActionCreate:
			create = true
		case core.ActionUpdate, ActionAdopt:
			edit = true
		case ActionClose: // removed.go
			closes = true
		}
	}
	var out []core.Permission
	if create {
		out = append(out, core.PermissionCreate)
	}
	if edit {
		out = append(out, core.PermissionEdit)
	}
	if closes {
		out = append(out, core.PermissionTransition, core.PermissionComment)
	}
	if link {
		out = append(out, core.PermissionLink)
	}
	if schedule {
		out = append(out, core.PermissionSchedule)
	}
	return out
}

// progressPermissions are the permissions a progress plan's writes need.
func progressPermissions(pl *progressPlan) []core.Permission {
	var out []core.Permission
	if pl.TransitionID != "" {
		out = append(out, core.PermissionTransition)
	}
	if pl.Comment != "" {
		out = append(out, core.PermissionComment)
	}
	return out
}
