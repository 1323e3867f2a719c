package fakeprovider

import (
	"context"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

var _ core.PermissionChecker = (*Provider)(nil)

// Deny takes the given permissions away from the account (none by
// default): previews needing them are refused.
func (p *Provider) Deny(perms ...core.Permission) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.denied == nil {
		p.denied = map[core.Permission]bool{}
	}
	for _, pm := range perms {
		p.denied[pm] = true
	}
}

// CheckPermissions implements core.PermissionChecker.
func (p *Provider) CheckPermissions(_ context.Context, perms []core.Permission) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var missing []string
	var details []core.Detail
	for _, pm := range perms {
		if p.denied[pm] {
			missing = append(missing, string(pm))
			details = append(details, core.Detail{Field: string(pm), Message: "missing"})
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return core.Errorf(core.CodeJiraPermissionDenied, "The account lacks %s in the project.", strings.Join(missing, ", ")).WithDetails(details...)
}
