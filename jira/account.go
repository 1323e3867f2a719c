package jira

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/devworkwire/devworkwire/core"
)

var (
	_ core.AccountReader = (*Provider)(nil)
	_ core.AccountSeer   = (*Provider)(nil)
)

// accountCache remembers the account of the Provider's credentials once
// read, and the account id Jira's answers named meanwhile: they do not
// change while the Provider lives.
type accountCache struct {
	mu sync.Mutex
	a  *core.Account
	// seen is the id an answer's header named (noteAccount); apart from
	// mu, which Account holds during its request.
	seen atomic.Pointer[string]
}

// The headers that name the account a request was answered for. Jira
// Cloud sends X-AAccountId, documented in the introduction of Atlassian's
// REST API v3 description ("Special request and response headers": "the
// Atlassian account ID of the authenticated user"); Jira Data Center
// sends X-AUSERNAME, documented in its REST reference's "Special request
// and response headers" ("the username of the authenticated user or
// 'anonymous'"), the user name this adapter uses as a Data Center
// account's id (datacenter.go).
const (
	headerAccountID = "X-AAccountId"
	headerUserName  = "X-AUSERNAME"
)

// noteAccount keeps the account id an answer's header names (the first
// one seen): so the service can name the account it writes as without a
// GET myself (SeenAccount).
func (p *Provider) noteAccount(h http.Header) {
	id := h.Get(headerAccountID)
	if id == "" && p.dataCenter() {
		if id = h.Get(headerUserName); id == "anonymous" {
			id = ""
		}
	}
	if id == "" {
		return
	}
	p.account.seen.CompareAndSwap(nil, &id)
}

// SeenAccount implements core.AccountSeer: the account as far as known
// without a request — all of it once GET myself was read, else the id
// Jira's answers named in their header (no name), else nothing.
func (p *Provider) SeenAccount() core.Account {
	p.account.mu.Lock()
	defer p.account.mu.Unlock()
	if p.account.a != nil {
		return *p.account.a
	}
	if id := p.account.seen.Load(); id != nil {
		return core.Account{ID: *id}
	}
	return core.Account{}
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
