package plan

import (
	"strings"
)

// The adopt line of an item: "Key: PROJ-12" in its Markdown field block,
// `key: PROJ-12` in YAML. It names an existing Jira issue that the item
// takes over (the import writes the item's reference to it instead of
// creating an issue); the tracker-side checks are the import's.

// keyName is the Markdown name of the adopt line, as normName gives it.
const keyName = "key"

// setKey records the adopt key of it from the text value written at line
// (display is how the line or key is shown in a message). A value that is
// not an issue key is a problem.
func (r *result) setKey(it *rawItem, value string, line int, shown string) {
	who := kindWord(it.Kind) + " " + it.ID
	v := strings.TrimSpace(value)
	switch {
	case it.KeyLine != 0:
		r.addf(it.ID, keyName, line, "%s has two Key lines (lines %d and %d); an item adopts one Jira issue, keep one", who, it.KeyLine, line)
	case v == "":
		r.addf(it.ID, keyName, line, "%s has %q with no issue key at line %d; write the key of the Jira issue it adopts, such as \"Key: PROJ-12\", or remove the line", who, shown, line)
	case !jiraKeyRe.MatchString(strings.ToUpper(v)):
		r.addf(it.ID, keyName, line, "%s has %q at line %d, which is not a Jira issue key; write the key of the issue it adopts, such as \"Key: PROJ-12\"", who, shown, line)
	default:
		it.Key, it.KeyLine = strings.ToUpper(v), line
	}
}

// checkKeys refuses one Jira issue adopted by two items of the document.
func (r *result) checkKeys() {
	first := map[string]*rawItem{}
	for _, it := range r.items {
		if it.Key == "" {
			continue
		}
		if prev, ok := first[it.Key]; ok {
			r.addf(it.ID, keyName, it.KeyLine, "%s %s adopts %s at line %d, which %s %s adopts already (line %d); an issue can be adopted by one item only. Remove one of the Key lines", kindWord(it.Kind), it.ID, it.Key, it.KeyLine, kindWord(prev.Kind), prev.ID, prev.KeyLine)
			continue
		}
		first[it.Key] = it
	}
}
