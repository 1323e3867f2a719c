package jira

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

var issueKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*-[1-9][0-9]*$`)

func (p *Provider) checkKey(key string) error {
	if !issueKeyRE.MatchString(key) {
		return core.Errorf(core.CodeWorkItemNotFound, "%q is not a Jira issue key (like %s-12). Check the key.", key, p.cfg.Project).WithDetails(core.Detail{Key: key, Message: "not an issue key"})
	}
	return nil
}

// checkOwnKey is checkKey for the reads and writes of one item (Get,
// Update, Transitions, Transition, AddComment): the key must also be of the
// configured project. A key of another project is WORK_ITEM_NOT_FOUND
// before any request: DevWorkWire reads and changes only the project it
// is configured for, so it never moves or comments on issues elsewhere
// (which it did not create and no document plans).
func (p *Provider) checkOwnKey(key string) error {
	if err := p.checkKey(key); err != nil {
		return err
	}
	if proj, _, _ := strings.Cut(key, "-"); !strings.EqualFold(proj, p.cfg.Project) {
		return core.Errorf(core.CodeWorkItemNotFound, "%s is an issue of project %s; DevWorkWire works only with project %s (jira.project), so it does not read or change %s. Use a key of project %s.", key, strings.ToUpper(proj), p.cfg.Project, key, p.cfg.Project).
			WithDetails(core.Detail{Key: key, Message: "not in project " + p.cfg.Project})
	}
	return nil
}

// ownItem checks the key of a call on one item of the project and reads
// the metadata the call needs.
func (p *Provider) ownItem(ctx context.Context, key string) (*meta, error) {
	if err := p.checkOwnKey(key); err != nil {
		return nil, err
	}
	return p.ensureMeta(ctx)
}

func issuePath(key string) string { return "/rest/api/3/issue/" + url.PathEscape(key) }

// Get returns one item by key.
func (p *Provider) Get(ctx context.Context, key string) (core.WorkItem, error) {
	ctx, done := p.observe(ctx, "Get")
	defer done()
	m, err := p.ownItem(ctx, key)
	if err != nil {
		return core.WorkItem{}, err
	}
	is, err := p.getIssue(ctx, m, key)
	if err != nil {
		return core.WorkItem{}, err
	}
	return p.workItem(m, is), nil
}

// getIssue reads one issue with every field a read asks for and the
// devworkwire property.
func (p *Provider) getIssue(ctx context.Context, m *meta, key string) (issue, error) {
	var is issue
	q := url.Values{"fields": {strings.Join(m.fieldsRequested(), ",")}, "properties": {PropertyKey}}
	_, err := p.do(ctx, call{method: "GET", path: issuePath(key), query: q, endpoint: "GET /rest/api/3/issue/{key}", action: "read issue " + key, key: key}, &is)
	return is, err
}

type editRequest struct {
	Fields     map[string]any   `json:"fields"`
	Properties []map[string]any `json:"properties,omitempty"`
}

// Update rewrites the item's content and its stored digest in one request.
// The content parts Jira already holds (spec.Unsent) are not sent, so a
// person's formatting there stays as Jira's editor stored it.
func (p *Provider) Update(ctx context.Context, key string, spec core.ItemSpec) error {
	ctx, done := p.observe(ctx, "Update")
	defer done()
	m, err := p.ownItem(ctx, key)
	if err != nil {
		return err
	}
	fields, props, err := p.writeFields(m, spec, false)
	if err != nil {
		return err
	}
	p.keepParent(key, spec, fields)
	m.leaveUnsent(fields, spec.Unsent)
	_, parentSent := fields["parent"]
	p.epicLinkOut(m, spec.Kind == core.KindSubtask, fields) // datacenter.go
	_, err = p.do(ctx, call{method: "PUT", path: issuePath(key), body: editRequest{Fields: fields, Properties: props}, class: retryIdempotent, endpoint: "PUT /rest/api/3/issue/{key}", action: "edit issue " + key, key: key}, nil)
	if err != nil {
		return putErr(err, spec.Reference, key)
	}
	if parentSent {
		p.parents.Store(strings.ToUpper(key), spec.ParentKey)
	}
	p.logFor(ctx).Debug("jira issue edited", "key", key, "reference", string(spec.Reference))
	return nil
}

// keepParent leaves the parent out of an edit when the issue, as this
// Provider last read it, already has the parent the spec names — a
// sub-task's parent is not resent, and "parent": null goes only to an
// issue that has a parent (where parent is not on a company-managed
// project's edit screen, Jira refuses the field, even as null). An issue
// this Provider never read gets the parent as before.
func (p *Provider) keepParent(key string, spec core.ItemSpec, fields map[string]any) {
	if _, sent := fields["parent"]; !sent {
		return
	}
	if cur, read := p.parents.Load(strings.ToUpper(key)); read && strings.EqualFold(cur.(string), spec.ParentKey) {
		delete(fields, "parent")
	}
}

// putErr is the error of a PUT to one item (an edit, a property): marked
// with MarkOutcomeUnknown when it may have been applied.
func putErr(err error, ref core.Reference, key string) error {
	var u *uncertainError
	if ok := asUncertain(err, &u); ok {
		return core.MarkOutcomeUnknown(u.err)
	}
	if core.ErrorCode(err) == core.CodeJiraUnavailable {
		// The PUT (resent on 5xx and network failures) got no answer to
		// its last attempt: it may have been applied.
		return core.MarkOutcomeUnknown(itemErr(err, ref, key))
	}
	return itemErr(err, ref, key)
}

// itemErr adds the item to a write error's details.
func itemErr(err error, ref core.Reference, key string) error {
	e := core.AsError(err)
	if len(e.Details) == 0 || e.Code == core.CodeValidationFailed {
		for i := range e.Details {
			e.Details[i].Item, e.Details[i].Key = string(ref), key
		}
		if len(e.Details) == 0 {
			e.Details = []core.Detail{{Item: string(ref), Key: key, Message: e.Message}}
		}
	}
	return e
}

// leaveUnsent takes out of an edit's fields the content Jira already holds
// (core.ItemSpec.Unsent): the summary, the description when it holds only
// unsent parts (the criteria live in it when there is no criteria field),
// the criteria field. The property's digests stay those of the whole
// content, which is what Jira holds after the edit.
func (m *meta) leaveUnsent(fields map[string]any, unsent []string) {
	has := func(k string) bool { return slices.Contains(unsent, k) }
	if has(core.ContentTitle) {
		delete(fields, "summary")
	}
	if has(core.ContentDescription) && (m.acField != "" || has(core.ContentCriteria)) {
		delete(fields, "description")
	}
	if m.acField != "" && has(core.ContentCriteria) {
		delete(fields, m.acField)
	}
}
