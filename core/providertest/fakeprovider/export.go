package fakeprovider

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

var _ core.IssueReader = (*Provider)(nil)

// ReadIssues implements core.IssueReader (counted as a query). The fake's
// query language is a list of keys separated by spaces or commas; an epic
// selection takes the epic and its children. Every selection adds the
// sub-tasks of the stories it holds. Items come in creation order.
func (p *Provider) ReadIssues(ctx context.Context, sel core.IssueSelection) ([]core.WorkItem, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpQuery); err != nil {
		return nil, err
	}
	keys := strings.FieldsFunc(sel.Query, func(r rune) bool { return r == ' ' || r == ',' })
	if sel.Epic != "" {
		if it, ok := p.items[sel.Epic]; !ok || it.w.Kind != core.KindEpic {
			return nil, core.Errorf(core.CodeWorkItemNotFound, "%s is not an epic of project %s.", sel.Epic, p.project)
		}
	}
	if sel.Project != "" && !strings.EqualFold(sel.Project, p.project) {
		return nil, core.Errorf(core.CodeValidationFailed, "Project %s is not %s, the project DevWorkWire works with here.", sel.Project, p.project)
	}
	picked := map[string]bool{}
	for _, it := range p.sorted() {
		w := it.w
		switch {
		case sel.Project != "",
			sel.Epic != "" && (w.Key == sel.Epic || w.ParentKey == sel.Epic && w.Kind != core.KindSubtask),
			slices.Contains(keys, w.Key):
			picked[w.Key] = true
		}
	}
	var out []core.WorkItem
	for _, it := range p.sorted() {
		if picked[it.w.Key] || it.w.Kind == core.KindSubtask && picked[it.w.ParentKey] {
			out = append(out, p.view(it))
		}
	}
	return out, nil
}

var _ core.PeopleReader = (*Provider)(nil)

// People implements core.PeopleReader: each person the items' assignee
// and "user" custom fields (FieldMeta.Types) name, with the e-mail
// FieldMeta.Users maps to them alone ("" when none: a person known by a
// name only, as one whose e-mail Jira hides).
func (p *Provider) People(ctx context.Context, items []core.WorkItem) (map[string]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpPeople); err != nil {
		return nil, err
	}
	users := p.fieldMeta.Users
	if users == nil {
		users = map[string][]string{"demo@example.com": {"acc-demo"}}
	}
	out := map[string]string{}
	for _, w := range items {
		for k, vals := range w.Fields {
			if k != core.FieldAssignee && p.fieldMeta.Types[k] != "user" {
				continue
			}
			for _, acc := range vals {
				out[acc] = ""
				for _, who := range slices.Sorted(maps.Keys(users)) {
					if strings.Contains(who, "@") && slices.Equal(users[who], []string{acc}) {
						out[acc] = who
						break
					}
				}
			}
		}
	}
	return out, nil
}
