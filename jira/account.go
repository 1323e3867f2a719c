package jira

import (
	"context"
	"sync"

	"github.com/devworkwire/devworkwire/core"
)

var _ core.AccountReader = (*Provider)(nil)

// accountCache remembers the account of the Provider's credentials once
// read: they do not change while the Provider lives.
type accountCache struct {
	mu sync.Mutex
	a  *core.Account
}

// Account implements core.AccountReader: GET /rest/api/3/myself, once per
// Provider. Only the account id and display name are kept (never the
// e-mail address, never the response body).
func (p *Provider) Account(ctx context.Context) (core.Account, error) {
	p.account.mu.Lock()
	defer p.account.mu.Unlock()
	if p.account.a != nil {
		return *p.account.a, nil
	}
	var me struct {
		AccountID   string `json:"accountId"`
		DisplayName string `json:"displayName"`
	}
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/myself", endpoint: "GET /rest/api/3/myself", action: "read your Jira account"}, &me); err != nil {
		return core.Account{}, err
	}
	a := core.Account{ID: me.AccountID, Name: me.DisplayName}
	p.account.a = &a
	return a, nil
}
