package plan

import (
	"fmt"
	"strings"
)

// The content keys "Drift: take-document <fields>" may name besides the
// field keys: they take the item's whole content (title, description,
// acceptance criteria, epic), which drifts as one.
var contentKeys = map[string]string{
	"title": "title", "summary": "title", "description": "description",
	"acceptance criteria": "acceptance_criteria", "acceptance_criteria": "acceptance_criteria", "criteria": "acceptance_criteria",
	"epic": "parent", "parent": "parent",
}

// IsContentKey reports whether a TakeFields entry names the item's
// content rather than one of its fields.
func IsContentKey(k string) bool {
	switch k {
	case "title", "description", "acceptance_criteria", "parent":
		return true
	}
	return false
}

// takeDocument parses a drift marker's value: "take-document" alone (ok,
// no fields: everything), or followed by a comma-separated list of the
// fields it takes ("take-document priority, description"). It returns the
// keys (field keys as in Problem.Field: "priority", "fix_versions",
// "fields.Team"; content keys "title", "description",
// "acceptance_criteria", "parent") and a problem ("" when fine); ok is
// false when the value is not a take-document marker at all.
func (o *Options) takeDocument(val string) (keys []string, problem string, ok bool) {
	v := strings.TrimSpace(val)
	if len(v) < len(DriftTakeDocument) || !strings.EqualFold(v[:len(DriftTakeDocument)], DriftTakeDocument) {
		return nil, "", false
	}
	rest := v[len(DriftTakeDocument):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return nil, "", false
	}
	for _, name := range strings.Split(rest, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			if strings.TrimSpace(rest) != "" {
				return nil, "has an empty entry in its field list; separate the fields with single commas", true
			}
			continue
		}
		k, found := o.takeKey(name)
		if !found {
			known := append(o.knownFields(), "Title", "Description", "Acceptance criteria", "Epic")
			return nil, fmt.Sprintf("names %q, which is not a field%s; name fields such as priority, description or a declared custom field", name, didYouMeanName(name, known)), true
		}
		if !contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, "", true
}

// takeKey resolves a name in a take-document list to its key.
func (o *Options) takeKey(name string) (string, bool) {
	n := normName(strings.ReplaceAll(name, "_", " "))
	if k, ok := contentKeys[n]; ok {
		return k, true
	}
	if f, ok := o.markdownField(n); ok && (f.builtin == nil || f.builtin.key != "sprint") {
		return f.key(), true
	}
	return "", false
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// isTakeDocument reports whether a drift value is a take-document marker
// (with or without a field list, which may still have a problem).
func (o *Options) isTakeDocument(s string) bool {
	_, _, ok := o.takeDocument(s)
	return ok
}
