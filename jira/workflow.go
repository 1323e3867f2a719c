package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// transitionJSON is one transition as Jira lists it (with
// expand=transitions.fields: the fields of its screen).
type transitionJSON struct {
	ID     string                         `json:"id"`
	Name   string                         `json:"name"`
	To     statusJSON                     `json:"to"`
	Fields map[string]transitionFieldJSON `json:"fields"`
}

// transitionFieldJSON is a field of a transition's screen (FieldMetadata).
type transitionFieldJSON struct {
	Name          string             `json:"name"`
	Required      bool               `json:"required"`
	AllowedValues []allowedValueJSON `json:"allowedValues"`
}

// allowedValueJSON is one allowed value of a screen field.
type allowedValueJSON struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// screenValue is what DevWorkWire gives one required field of a
// transition's screen: the value Config.TransitionFields names, else its
// first allowed value (Resolution: Done on a classic workflow's Resolve
// Issue).
type screenValue struct {
	field, fieldName string
	id, name         string
}

// screen returns the values for the transition's required screen fields,
// in field id order, or why one cannot be filled (a required field
// without allowed values, or whose named value it does not allow). named
// is Config.TransitionFields.
func (t transitionJSON) screen(named map[string]string) ([]screenValue, string) {
	var out []screenValue
	for _, id := range slices.Sorted(maps.Keys(t.Fields)) {
		f := t.Fields[id]
		if !f.Required {
			continue
		}
		name := f.Name
		if name == "" {
			name = id
		}
		if len(f.AllowedValues) == 0 {
			return nil, fmt.Sprintf("its screen requires %s (%s), which DevWorkWire cannot fill", name, id)
		}
		label := func(i int) string { return cmpOr(f.AllowedValues[i].Name, f.AllowedValues[i].Value) }
		pick := 0
		if want, ok := namedValue(named, id, name); ok {
			pick = slices.IndexFunc(f.AllowedValues, func(v allowedValueJSON) bool {
				return strings.EqualFold(cmpOr(v.Name, v.Value), strings.TrimSpace(want))
			})
			if pick < 0 {
				allowed := make([]string, len(f.AllowedValues))
				for i := range allowed {
					allowed[i] = label(i)
				}
				return nil, fmt.Sprintf("its screen requires %s, and jira.transition_fields names %q, which it does not allow (allowed: %s): set one of them", name, want, strings.Join(allowed, ", "))
			}
		}
		v := f.AllowedValues[pick]
		out = append(out, screenValue{field: id, fieldName: name, id: v.ID, name: label(pick)})
	}
	return out, ""
}

// namedValue is the value TransitionFields names for the field (by id,
// else by name, any case).
func namedValue(named map[string]string, id, name string) (string, bool) {
	if v, ok := named[id]; ok {
		return v, true
	}
	for k, v := range named {
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return v, true
		}
	}
	return "", false
}

func (p *Provider) listTransitions(ctx context.Context, key string) ([]transitionJSON, error) {
	if err := p.checkOwnKey(key); err != nil {
		return nil, err
	}
	var resp struct {
		Transitions []transitionJSON `json:"transitions"`
	}
	q := url.Values{"expand": {"transitions.fields"}} // the screens' fields: what a transition needs set
	if _, err := p.do(ctx, call{method: "GET", path: issuePath(key) + "/transitions", query: q, endpoint: "GET /rest/api/3/issue/{key}/transitions", action: "list the transitions of issue " + key, key: key}, &resp); err != nil {
		return nil, err
	}
	return resp.Transitions, nil
}

// Transitions lists the workflow transitions available on the item now.
func (p *Provider) Transitions(ctx context.Context, key string) ([]core.Transition, error) {
	ctx, done := p.observe(ctx, "Transitions")
	defer done()
	ts, err := p.listTransitions(ctx, key)
	if err != nil {
		return nil, err
	}
	out := make([]core.Transition, 0, len(ts))
	for _, t := range ts {
		ct := core.Transition{ID: t.ID, Name: t.Name, To: mapCategory(t.To.StatusCategory.Key), ToName: t.To.Name}
		sets, blocked := t.screen(p.cfg.TransitionFields)
		for _, v := range sets {
			ct.Sets = append(ct.Sets, v.fieldName+": "+v.name)
		}
		ct.Blocked = blocked
		out = append(out, ct)
	}
	return out, nil
}

// Transition moves the item through the transition with the given id.
//
// It first reads the transitions available now (an unavailable id is
// VALIDATION_FAILED without sending anything) to learn the target status.
// The POST is retried only when Jira refused it with 429 (nothing was
// done). After a 5xx, a reset or a timeout the transition may or may not
// have happened: the item's status is read back, and the call succeeds if
// the item is in the target status, else fails with JIRA_UNAVAILABLE — it
// is never resent blindly.
func (p *Provider) Transition(ctx context.Context, key, transitionID string) error {
	ctx, done := p.observe(ctx, "Transition")
	defer done()
	if err := p.checkOwnKey(key); err != nil {
		return err
	}
	unavailable := func(cause error) error {
		return core.Wrap(cause, core.CodeValidationFailed, "Transition %s is not available on %s now (its status may have changed). Run the progress preview again to see the current transitions.", transitionID, key).WithDetails(core.Detail{Key: key, Field: "transition"})
	}
	ts, err := p.listTransitions(ctx, key)
	if err != nil {
		return err
	}
	var target *statusJSON
	var chosen transitionJSON
	for _, t := range ts {
		if t.ID == transitionID {
			chosen, target = t, &t.To
			break
		}
	}
	if target == nil {
		return unavailable(nil)
	}
	body := map[string]any{"transition": map[string]string{"id": transitionID}}
	sets, blocked := chosen.screen(p.cfg.TransitionFields)
	if blocked != "" {
		return core.Errorf(core.CodeValidationFailed, "Transition %q of %s cannot be taken: %s. Run the progress preview again.", chosen.Name, key, blocked).WithDetails(core.Detail{Key: key, Field: "transition", Message: blocked})
	}
	if len(sets) > 0 {
		// The screen's required fields, filled as the preview showed.
		fields := map[string]any{}
		for _, v := range sets {
			if v.id != "" {
				fields[v.field] = map[string]string{"id": v.id}
			} else {
				fields[v.field] = map[string]string{"name": v.name}
			}
		}
		body["fields"] = fields
	}
	_, err = p.do(ctx, call{method: "POST", path: issuePath(key) + "/transitions", body: body, class: retryRejected, endpoint: "POST /rest/api/3/issue/{key}/transitions", action: "transition issue " + key, key: key}, nil)
	if err == nil {
		return nil
	}
	var u *uncertainError
	if asUncertain(err, &u) {
		var is issue
		q := url.Values{"fields": {"status"}}
		if _, gerr := p.do(context.WithoutCancel(ctx), call{method: "GET", path: issuePath(key), query: q, endpoint: "GET /rest/api/3/issue/{key}", action: "read the status of issue " + key, key: key}, &is); gerr == nil && target.Name != "" && is.status().Name == target.Name {
			p.logFor(ctx).Info("jira transition outcome resolved", "key", key, "applied", true)
			return nil
		}
		p.logFor(ctx).Warn("jira transition outcome unknown", "key", key)
		return core.MarkOutcomeUnknown(u.err)
	}
	if core.ErrorCode(err) == core.CodeValidationFailed {
		// The transition was available a moment ago: Jira's answer is
		// its reason (a validator, a screen field), translated.
		e := core.AsError(err)
		reason := e.Message
		if _, after, ok := strings.Cut(reason, "transition issue "+key+": "); ok {
			reason = after
		}
		return core.Wrap(err, core.CodeValidationFailed, "Jira refused to move %s through %q to %s: %s. Fix that in Jira (or run the progress preview again if the item changed), then commit a new preview.",
			key, chosen.Name, target.Name, strings.TrimSuffix(reason, ".")).WithDetails(core.Detail{Key: key, Field: "transition", Message: reason})
	}
	return err
}

// AddComment adds a Markdown comment, converted to ADF. Like Transition,
// it is resent only after a 429. After a 5xx, a reset or a timeout the
// item's recent comments are read back: a comment with the same content,
// created in the last few minutes by Jira's clock, means it was added;
// otherwise the call fails with JIRA_UNAVAILABLE (and was not added, as far
// as Jira shows).
func (p *Provider) AddComment(ctx context.Context, key, markdown string) error {
	ctx, done := p.observe(ctx, "AddComment")
	defer done()
	if err := p.checkOwnKey(key); err != nil {
		return err
	}
	if strings.TrimSpace(markdown) == "" {
		return core.Errorf(core.CodeValidationFailed, "The comment for %s is empty. Write some text.", key).WithDetails(core.Detail{Key: key, Field: "comment"})
	}
	body, err := p.richText(markdown)
	if err != nil {
		return core.Wrap(err, core.CodeValidationFailed, "The comment for %s could not be converted to Jira's document format. Simplify its Markdown.", key).WithDetails(core.Detail{Key: key, Field: "comment"})
	}
	_, err = p.do(ctx, call{method: "POST", path: issuePath(key) + "/comment", body: map[string]any{"body": body}, class: retryRejected, endpoint: "POST /rest/api/3/issue/{key}/comment", action: "comment on issue " + key, key: key}, nil)
	if err == nil {
		return nil
	}
	var u *uncertainError
	if asUncertain(err, &u) {
		if p.commentLanded(context.WithoutCancel(ctx), key, fromADF(body)) {
			p.logFor(ctx).Info("jira comment outcome resolved", "key", key, "applied", true)
			return nil
		}
		p.logFor(ctx).Warn("jira comment outcome unknown", "key", key)
		return core.MarkOutcomeUnknown(u.err)
	}
	return err
}

// recentComment bounds how old (by Jira's clock) a comment found after an
// uncertain AddComment may be to count as the one just sent.
const recentComment = 5 * time.Minute

// commentLanded reports whether the issue has a recent comment whose
// content equals want (canonical Markdown).
func (p *Provider) commentLanded(ctx context.Context, key, want string) bool {
	var resp struct {
		Comments []struct {
			Body    json.RawMessage `json:"body"`
			Created string          `json:"created"`
		} `json:"comments"`
	}
	q := url.Values{"orderBy": {"-created"}, "maxResults": {"100"}}
	r, err := p.do(ctx, call{method: "GET", path: issuePath(key) + "/comment", query: q, endpoint: "GET /rest/api/3/issue/{key}/comment", action: "read the comments of issue " + key, key: key}, &resp)
	if err != nil || r == nil {
		return false
	}
	now, err := http.ParseTime(r.header.Get("Date"))
	if err != nil {
		return false // without Jira's clock, recency cannot be judged
	}
	for _, c := range resp.Comments {
		created, ok := parseJiraTime(c.Created)
		if !ok || now.Sub(created) > recentComment {
			continue
		}
		if fromADF(c.Body) == want {
			return true
		}
	}
	return false
}

func asUncertain(err error, u **uncertainError) bool {
	if e, ok := err.(*uncertainError); ok {
		*u = e
		return true
	}
	return false
}
