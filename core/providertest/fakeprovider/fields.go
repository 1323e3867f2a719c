package fakeprovider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// FieldMeta is what the fake tracker allows in the managed fields
// (SetFieldMeta). The zero value of a part takes its default.
type FieldMeta struct {
	// Priorities, default Jira Cloud's scheme (Highest … Lowest).
	Priorities []string
	// Users maps what a document may write for a person (an e-mail or a
	// name, matched case-insensitively) to the account id it resolves to.
	// Several entries for one written value make it ambiguous. Default:
	// demo@example.com → "acc-demo". An account id itself is accepted too.
	Users map[string][]string
	// Components and FixVersions allowed (default none).
	Components, FixVersions []string
	// Custom lists the declared custom fields (keys "fields.<name>") and
	// their allowed values (nil = free text). A custom key not here is not
	// on the item's screen.
	Custom map[string][]string
	// Types gives a custom field its type, as Jira's custom field types:
	// "text", "number", "date", "select", "multiselect" (the document's
	// text split at commas, each an allowed value), "user" (a person
	// resolved through Users, assignable or not) or "labels" (split at
	// commas, no spaces). Default: "select" with allowed values, else
	// "text".
	Types map[string]string
	// NotAssignable are account ids (of Users) that cannot be assigned
	// issues: refused as the assignee, accepted in a user field.
	NotAssignable []string
	// Required lists field keys a create must set.
	Required []string
}

var defaultPriorities = []string{"Highest", "High", "Medium", "Low", "Lowest"}

// SetFieldMeta sets what the managed fields allow.
func (p *Provider) SetFieldMeta(m FieldMeta) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fieldMeta = m
}

// SetField changes one managed field of an item as a person in the
// tracker would (nil clears it): the item's fingerprint changes, its
// content digest does not.
func (p *Provider) SetField(key, field string, values []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	it, ok := p.items[key]
	if !ok {
		return notFound(key)
	}
	setField(it, field, values)
	p.touch(it)
	return nil
}

func setField(it *item, field string, values []string) {
	if it.fields == nil {
		it.fields = map[string][]string{}
	}
	if len(values) == 0 {
		delete(it.fields, field)
	} else {
		it.fields[field] = slices.Clone(values)
	}
}

// writeFields applies a spec's fields and stores its bases.
func writeFields(it *item, s core.ItemSpec) {
	for k, v := range s.Fields {
		setField(it, k, v.Values)
	}
	if s.FieldBases != nil {
		it.bases, it.baseValues = maps.Clone(s.FieldBases), cloneValues(s.BaseValues)
	}
}

// ResolveFields implements core.FieldResolver against FieldMeta.
func (p *Provider) ResolveFields(ctx context.Context, reqs []core.FieldRequest) ([]map[string]core.FieldValue, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.enter(ctx, OpResolve); err != nil {
		return nil, err
	}
	m := p.fieldMeta
	prios := m.Priorities
	if prios == nil {
		prios = defaultPriorities
	}
	users := m.Users
	if users == nil {
		users = map[string][]string{"demo@example.com": {"acc-demo"}}
	}
	out := make([]map[string]core.FieldValue, len(reqs))
	var details []core.Detail
	bad := func(r core.FieldRequest, k, msg string) {
		details = append(details, core.Detail{Item: string(r.Reference), Field: k, Message: fmt.Sprintf("%s: %s", core.FieldName(k), msg)})
	}
	oneOf := func(v string, allowed []string) (string, bool) {
		for _, a := range allowed {
			if strings.EqualFold(a, v) {
				return a, true
			}
		}
		return "", false
	}
	for i, r := range reqs {
		res := map[string]core.FieldValue{}
		for _, k := range slices.Sorted(maps.Keys(r.Fields)) {
			v := r.Fields[k]
			var vals []string
			for _, x := range v.Values {
				switch {
				case k == core.FieldPriority || k == core.FieldComponents || k == core.FieldFixVersions:
					allowed := map[string][]string{core.FieldPriority: prios, core.FieldComponents: m.Components, core.FieldFixVersions: m.FixVersions}[k]
					c, ok := oneOf(x, allowed)
					if !ok {
						bad(r, k, fmt.Sprintf("%q does not exist; allowed: %s", x, strings.Join(allowed, ", ")))
					}
					vals = append(vals, c)
				case k == core.FieldAssignee:
					id, problem := person(users, x)
					if id == "" && problem == fmt.Sprintf("no user %q", x) || slices.Contains(m.NotAssignable, id) {
						problem = fmt.Sprintf("no assignable user %q", x)
					}
					if problem != "" {
						bad(r, k, problem)
					}
					vals = append(vals, id)
				case k == core.FieldEstimate:
					vals = append(vals, number(r, k, x, bad))
				case k == core.FieldDue:
					vals = append(vals, date(r, k, x, bad))
				case strings.HasPrefix(k, core.FieldCustomPrefix):
					allowed, declared := m.Custom[k]
					if !declared {
						bad(r, k, "not on the screen of this item's type")
						continue
					}
					typ := m.Types[k]
					if typ == "" {
						typ = map[bool]string{true: "text", false: "select"}[allowed == nil]
					}
					parts := []string{x}
					if typ == "multiselect" || typ == "labels" {
						parts = nil
						for _, p := range strings.Split(x, ",") {
							if p = strings.TrimSpace(p); p != "" {
								parts = append(parts, p)
							}
						}
					}
					for _, x := range parts {
						switch typ {
						case "number":
							vals = append(vals, number(r, k, x, bad))
						case "date":
							vals = append(vals, date(r, k, x, bad))
						case "user":
							id, problem := person(users, x)
							if problem != "" {
								bad(r, k, problem)
							}
							vals = append(vals, id)
						case "labels":
							if strings.ContainsAny(x, " \t") {
								bad(r, k, fmt.Sprintf("the label %q has spaces", x))
							}
							vals = append(vals, x)
						case "select", "multiselect":
							c, ok := oneOf(x, allowed)
							if !ok {
								bad(r, k, fmt.Sprintf("%q is not an option; allowed: %s", x, strings.Join(allowed, ", ")))
							}
							vals = append(vals, c)
						default:
							vals = append(vals, x)
						}
					}
				default:
					vals = append(vals, x)
				}
			}
			res[k] = core.FieldValue{Values: vals, Source: v.Source}
		}
		if r.Create {
			for _, k := range m.Required {
				if fv, ok := r.Fields[k]; !ok || len(fv.Values) == 0 {
					bad(r, k, "required; set it in the item or a default")
				}
			}
		}
		out[i] = res
	}
	if len(details) > 0 {
		return nil, core.Errorf(core.CodeValidationFailed, "%s (see details); nothing was stored.", core.Plural(len(details), "field problem", "field problems")).WithDetails(details...)
	}
	return out, nil
}

func cloneValues(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// person resolves what a document writes for a person through users (an
// account id itself too): the account id, or why not.
func person(users map[string][]string, x string) (string, string) {
	var ids []string
	for name, acc := range users {
		if strings.EqualFold(name, x) {
			ids = append(ids, acc...)
		}
		if slices.Contains(acc, x) {
			ids = append(ids, x)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	switch len(ids) {
	case 1:
		return ids[0], ""
	case 0:
		return "", fmt.Sprintf("no user %q", x)
	}
	return "", fmt.Sprintf("%q is ambiguous: %s", x, strings.Join(ids, ", "))
}

func number(r core.FieldRequest, k, x string, bad func(core.FieldRequest, string, string)) string {
	n, err := strconv.ParseFloat(x, 64)
	if err != nil {
		bad(r, k, fmt.Sprintf("%q is not a number", x))
	}
	return strconv.FormatFloat(n, 'f', -1, 64)
}

func date(r core.FieldRequest, k, x string, bad func(core.FieldRequest, string, string)) string {
	if _, err := time.Parse(time.DateOnly, x); err != nil {
		bad(r, k, fmt.Sprintf("%q is not a date", x))
	}
	return x
}
