package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// Get returns one work item by key or reference, self-sufficient: its
// epic with title, and for an epic its stories. It writes nothing.
func (s *WorkItemService) Get(ctx context.Context, in GetInput) (GetResult, error) {
	ctx, o := s.begin(ctx, "workitem.get")
	w, err := s.resolve(ctx, in.Item)
	if err != nil {
		return GetResult{}, o.fail(err)
	}
	epics := map[string]*ItemRef{}
	v, err := s.view(ctx, w, epics)
	if err != nil {
		return GetResult{}, o.fail(err)
	}
	if w.Kind == core.KindEpic {
		kids, _, err := s.p.Query(ctx, core.Filter{EpicKey: w.Key, Limit: core.MaxQueryLimit})
		if err != nil {
			return GetResult{}, o.fail(err)
		}
		for _, k := range kids {
			v.Children = append(v.Children, itemRef(k))
		}
	}
	one := []ItemView{v}
	s.markRemoved(ctx, o, one) // removed.go
	v = one[0]
	o.done("item read", "key", w.Key, "children", len(v.Children))
	return GetResult{ResultType: ResultPreview, RunID: o.runID, Item: v}, nil
}

// view builds an ItemView, looking up the parent epic's title once per
// epic (epics caches them).
func (s *WorkItemService) view(ctx context.Context, w core.WorkItem, epics map[string]*ItemRef) (ItemView, error) {
	v := ItemView{
		Key: w.Key, Reference: w.Reference, Kind: w.Kind, Title: w.Title, Description: w.Description,
		AcceptanceCriteria: w.AcceptanceCriteria, Status: w.Status, StatusName: w.StatusName, URL: w.URL,
		BlockedBy: w.BlockedBy, Blocks: w.Blocks, Subtasks: w.Subtasks, Sprint: w.Sprint,
	}
	if !w.Updated.IsZero() {
		v.Updated = core.UTCSecond(w.Updated)
	}
	for _, k := range slices.Sorted(maps.Keys(w.Fields)) {
		if vals := w.Fields[k]; len(vals) > 0 {
			v.Fields = append(v.Fields, ItemField{Field: k, Value: strings.Join(vals, ", "), Shown: shownPeople(vals, w.People)})
		}
	}
	if w.ParentKey == "" {
		return v, nil
	}
	ref, ok := epics[w.ParentKey]
	if !ok {
		e, err := s.p.Get(ctx, w.ParentKey)
		switch {
		case err == nil:
			r := itemRef(e)
			ref = &r
		case core.ErrorCode(err) == core.CodeWorkItemNotFound:
			ref = &ItemRef{Key: w.ParentKey}
		default:
			return ItemView{}, err
		}
		epics[w.ParentKey] = ref
	}
	if w.Kind == core.KindSubtask {
		v.Story = ref // a sub-task's parent is its story
	} else {
		v.Epic = ref
	}
	return v, nil
}

// Query returns up to limit work items matching the filter, and whether
// more matched. It writes nothing.
func (s *WorkItemService) Query(ctx context.Context, in QueryInput) (QueryResult, error) {
	ctx, o := s.begin(ctx, "workitem.query")
	res, err := s.query(ctx, o, in)
	if err != nil {
		return QueryResult{}, o.fail(err)
	}
	o.done("query answered", "returned", res.Returned, "truncated", res.Truncated)
	return res, nil
}

func (s *WorkItemService) query(ctx context.Context, o *op, in QueryInput) (QueryResult, error) {
	var problems []core.Detail
	if in.Status != "" && !in.Status.Valid() {
		problems = append(problems, core.Detail{Field: "status", Message: fmt.Sprintf("%q is not a status%s; use %s", in.Status, didYouMean(string(in.Status), "todo", "in_progress", "done"), statusList())})
	}
	if in.Limit < 0 || in.Limit > core.MaxQueryLimit {
		problems = append(problems, core.Detail{Field: "limit", Message: fmt.Sprintf("limit %d is out of range; use 1 to %d (default %d)", in.Limit, core.MaxQueryLimit, core.DefaultQueryLimit)})
	}
	if in.Kind != "" && !in.Kind.Valid() {
		problems = append(problems, core.Detail{Field: "kind", Message: fmt.Sprintf("%q is not a kind%s; use epic, story or subtask", in.Kind, didYouMean(string(in.Kind), core.KindNames()...))})
	}
	if in.Ready && in.Status != "" && in.Status != core.StatusTodo {
		problems = append(problems, core.Detail{Field: "ready", Message: fmt.Sprintf("ready items are in status todo, so ready cannot be combined with status %s", in.Status)})
	}
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Message
		}
		return QueryResult{}, core.Errorf(core.CodeValidationFailed, "Invalid query: %s.", strings.Join(msgs, "; ")).WithDetails(problems...)
	}
	f := core.Filter{Status: in.Status, Kind: in.Kind, Document: strings.TrimSpace(in.Document), Text: strings.TrimSpace(in.Text), Ready: in.Ready, Limit: in.Limit}
	// Ready work is what a person can pick up: stories and sub-tasks, not
	// epics (an epic is done when its stories are); the provider leaves
	// epics out of Ready unless Kind asks for them (Filter.Ready).
	if f.Limit == 0 {
		f.Limit = core.DefaultQueryLimit
	}
	if epic := strings.TrimSpace(in.Epic); epic != "" {
		w, err := s.resolve(ctx, epic)
		if err != nil {
			return QueryResult{}, err
		}
		if w.Kind != core.KindEpic {
			return QueryResult{}, core.Errorf(core.CodeValidationFailed, "%s is a %s, not an epic: the epic filter needs an epic's key or reference.", epic, w.Kind).
				WithDetails(core.Detail{Field: "epic", Item: epic, Message: "not an epic"})
		}
		f.EpicKey = w.Key
	}
	items, truncated, err := s.p.Query(ctx, f)
	if err != nil {
		return QueryResult{}, err
	}
	res := QueryResult{ResultType: ResultPreview, RunID: o.runID, Items: make([]ItemView, 0, len(items)), Truncated: truncated}
	epics := map[string]*ItemRef{}
	for _, w := range items {
		if w.Kind == core.KindEpic {
			r := itemRef(w)
			epics[w.Key] = &r
		}
	}
	for _, w := range items {
		v, err := s.view(ctx, w, epics)
		if err != nil {
			return QueryResult{}, err
		}
		res.Items = append(res.Items, v)
	}
	res.Returned = len(res.Items)
	s.markRemoved(ctx, o, res.Items) // removed.go
	return res, nil
}

// didYouMean is " (did you mean x?)" when one of known is close to word
// (core.Closest), else "".
func didYouMean(word string, known ...string) string {
	if c := core.Closest(word, known); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

// shownPeople is a field's values as a person reads them when the tracker
// named any of them (people: account id → display name): "Name (id)" for
// each named one, the others as they are; "" when it named none.
func shownPeople(vals []string, people map[string]string) string {
	named := false
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v
		if n := people[v]; n != "" {
			out[i], named = n+" ("+v+")", true
		}
	}
	if !named {
		return ""
	}
	return strings.Join(out, ", ")
}
