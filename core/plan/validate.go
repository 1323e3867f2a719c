package plan

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
)

// RunAgain is what a problem message tells the person to do once the
// document is fixed: the words of a preview. A front door that reads a
// document for something else (dwire graph) replaces these words with
// its own.
const RunAgain = "run the preview again"

// rawItem is an item as parsed, with what validation needs to know about
// where its parts came from.
type rawItem struct {
	Item
	parent       string // epic id given by structure (heading nesting / YAML nesting)
	parentLine   int
	parentBroken bool   // sits under an epic heading that could not be read
	epicRef      string // epic id named explicitly (Epic: line / `epic:` key)
	epicRefLine  int
	critLines    []int        // line of each acceptance criterion
	noID         bool         // the id is missing (already reported)
	fields       *fieldSetter // the item's own fields (nil: none), before the document's defaults
	links        rawLinks     // dependency entries as written
	span         itemSpan     // where the item's parts are written (rewrite.go)
}

// withDefaults is the item as the document gives it: its own fields with
// the document's defaults d applied.
func (it *rawItem) withDefaults(d Fields) Item {
	item := it.Item
	var own Fields
	if it.fields != nil {
		own = it.fields.own
	}
	item.Fields = own.WithDefaults(d)
	return item
}

// setter returns the recorder of the item's own fields.
func (it *rawItem) setter() *fieldSetter {
	if it.fields == nil {
		it.fields = &fieldSetter{from: SourceItem}
		it.fields.fields = &it.fields.own
	}
	return it.fields
}

// result is a parsed document before validation.
type result struct {
	format    format
	docID     string
	docIDLine int
	docIDSet  bool // given in the document (front matter / top-level id)
	title     string
	items     []*rawItem
	opts      *Options
	defaults  Fields // the document's `defaults:`
	removed   string // `removed:` (removed.go)
	listsKeys bool   // YAML: an `epics:` or `stories:` key is there (a plan, even if empty)
	problems  []Problem
	dropped   int // problems beyond MaxProblems
}

func (r *result) addf(item, field string, line int, format string, args ...any) {
	if len(r.problems) >= MaxProblems {
		r.dropped++ // counted, not formatted: a flood of problems stays cheap
		return
	}
	r.problems = append(r.problems, Problem{Item: item, Field: field, Line: line, Message: fmt.Sprintf(format, args...)})
}

func kindWord(kind string) string {
	switch kind {
	case KindEpic:
		return "Epic"
	case KindSubtask:
		return "Sub-task"
	}
	return "Story"
}

// listed says which of n problems the details list when unlisted of them
// are left out.
func listed(n, unlisted int) string {
	if unlisted == 0 {
		return "each listed in details"
	}
	return fmt.Sprintf("the first %d listed in details", n-unlisted)
}

// unlistedProblem is the last entry of a list that leaves n problems out.
func unlistedProblem(n int) Problem {
	return Problem{Message: fmt.Sprintf("%s not listed; fix the ones above and %s to see the rest", core.Plural(n, "more problem is", "more problems are"), RunAgain)}
}

// MaxProblems is how many problems a VALIDATION_FAILED error lists (the
// first found, in line order); one more entry says how many were left out.
const MaxProblems = 1000

// finish validates r and returns the Document or a VALIDATION_FAILED error
// listing every problem.
func (r *result) finish(name string) (*Document, error) {
	doc := &Document{Title: r.title, Removed: r.removed}

	// Document id.
	if r.docIDSet {
		switch {
		case r.docID == "":
			r.addf("", "id", r.docIDLine, "The document id is empty; set %s to an id such as checkout-v2 that stays the same across edits", r.idKeyHint())
		case !ValidID(r.docID):
			r.addf("", "id", r.docIDLine, "The document id %q is not valid: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (for example checkout-v2)", r.docID)
		default:
			doc.ID = r.docID
		}
	} else if id := idFromName(name); id != "" {
		doc.ID = id
	} else {
		r.addf("", "id", 0, "The document has no id and there is no file name to derive one from; add %s with an id such as checkout-v2 that stays the same across edits", r.idKeyHint())
	}

	if len(r.items) == 0 && len(r.problems) == 0 {
		if r.format == formatYAML {
			r.addf("", "", 0, "The document defines no epics or stories; add an `epics:` list (each epic with id and title) or a `stories:` list")
		} else {
			r.addf("", "", 0, "The document defines no epics or stories; add at least one \"## Epic <id>: <title>\" or \"## Story <id>: <title>\" heading")
		}
	}

	type seen struct {
		kind string
		line int
	}
	byID := make(map[string]seen, len(r.items))
	for _, it := range r.items {
		if it.noID {
			continue
		}
		w := kindWord(it.Kind)
		if !ValidID(it.ID) {
			r.addf(it.ID, "id", it.Line, "%s id %q at line %d is not valid: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (for example %s)", w, it.ID, it.Line, exampleID(it.Kind))
		} else if prev, ok := byID[it.ID]; ok {
			r.addf(it.ID, "id", it.Line, "%s %s at line %d has the same id as the %s at line %d; give each item its own id (the id is how a re-import finds the Jira issue it created)", w, it.ID, it.Line, prev.kind, prev.line)
		} else {
			byID[it.ID] = seen{it.Kind, it.Line}
		}
		title := it.Title
		switch {
		case strings.TrimSpace(title) == "":
			if r.format == formatYAML {
				r.addf(it.ID, "title", it.Line, "%s %s has no title; add `title: <one-line summary>`", w, it.ID)
			} else {
				r.addf(it.ID, "title", it.Line, "%s %s has an empty title; write it after the colon: \"%s %s %s: <title>\"", w, it.ID, headingPrefix(it), w, it.ID)
			}
		case strings.ContainsAny(title, "\n\r"):
			r.addf(it.ID, "title", it.Line, "%s %s has a title of several lines; a Jira summary is one line, so keep the title on one line and move the rest into the description", w, it.ID)
		case strings.IndexFunc(title, isControl) >= 0:
			c := title[strings.IndexFunc(title, isControl)]
			r.addf(it.ID, "title", it.Line, "%s %s has a control character (U+%04X) in its title; remove it, Jira summaries are plain text", w, it.ID, c)
		default:
			if n := utf8.RuneCountInString(title); n > MaxTitleLength {
				r.addf(it.ID, "title", it.Line, "%s %s has a title of %d characters; Jira allows at most %d in a summary. Shorten it and move the detail into the description", w, it.ID, n, MaxTitleLength)
			}
		}
		if n := utf8.RuneCountInString(it.Description); n > MaxDescriptionLength {
			r.addf(it.ID, "description", it.Line, "%s %s has a description of %d characters; Jira allows at most %d in a text field. Shorten it, split the item, or link to a longer document", w, it.ID, n, MaxDescriptionLength)
		}
		for i, c := range it.AcceptanceCriteria {
			if strings.TrimSpace(c) == "" {
				line := it.Line
				if i < len(it.critLines) {
					line = it.critLines[i]
				}
				r.addf(it.ID, "acceptance_criteria", line, "%s %s has an empty acceptance criterion at line %d; write the criterion or remove the entry", w, it.ID, line)
			}
		}
	}

	// Epic references.
	for _, it := range r.items {
		if it.noID || it.Kind != KindStory {
			continue
		}
		if r.otherDocEpic(doc.ID, it) {
			continue
		}
		switch {
		case it.parentBroken:
			it.Epic = ""
			continue
		case it.parent != "" && it.epicRef != "" && it.parent != it.epicRef:
			// Never suggest moving the story under an epic that does not
			// exist (or is a story): say what the reference is first.
			if target, ok := byID[it.epicRef]; !ok || target.kind != KindEpic {
				what := "which is not defined in this document"
				if ok {
					what = fmt.Sprintf("which is a story (line %d), not an epic", target.line)
				}
				if r.format == formatYAML {
					r.addf(it.ID, "epic", it.epicRefLine, "Story %s references epic %s, %s; the story is listed under epic %s (line %d), so remove the `epic:` key or correct it", it.ID, it.epicRef, what, it.parent, it.parentLine)
				} else {
					r.addf(it.ID, "epic", it.epicRefLine, "Story %s references epic %s, %s; the story sits under epic %s (line %d), so remove the Epic: line or correct it", it.ID, it.epicRef, what, it.parent, it.parentLine)
				}
				continue
			}
			if r.format == formatYAML {
				r.addf(it.ID, "epic", it.epicRefLine, "Story %s is listed under epic %s (line %d) but its `epic:` key names %s; remove the key or move the story to the stories of epic %s", it.ID, it.parent, it.parentLine, it.epicRef, it.epicRef)
			} else {
				r.addf(it.ID, "epic", it.epicRefLine, "Story %s sits under epic %s (line %d) but its Epic: line names %s; remove the Epic: line or move the story under epic %s", it.ID, it.parent, it.parentLine, it.epicRef, it.epicRef)
			}
			continue
		case it.parent != "":
			it.Epic = it.parent
			continue
		default:
			it.Epic = it.epicRef
		}
		if it.Epic == "" {
			continue
		}
		target, ok := byID[it.Epic]
		switch {
		case !ok:
			if r.format == formatYAML {
				r.addf(it.ID, "epic", it.epicRefLine, "Story %s references epic %s, which is not defined in this document; define it under `epics:` or correct the `epic:` value", it.ID, it.Epic)
			} else {
				r.addf(it.ID, "epic", it.epicRefLine, "Story %s references epic %s, which is not defined in this document; add \"## Epic %s: <title>\" or correct the Epic: line", it.ID, it.Epic, it.Epic)
			}
		case target.kind != KindEpic:
			r.addf(it.ID, "epic", it.epicRefLine, "Story %s references epic %s, which is a story (line %d), not an epic; name an epic instead", it.ID, it.Epic, target.line)
		}
	}

	r.resolveLinks(doc.ID, r.items, func(id string) bool { _, ok := byID[id]; return ok })
	r.checkKeys() // key.go

	if len(r.problems) > 0 {
		sort.SliceStable(r.problems, func(i, j int) bool { return r.problems[i].Line < r.problems[j].Line })
		n := len(r.problems) + r.dropped
		if r.dropped > 0 {
			r.problems = append(r.problems, unlistedProblem(r.dropped))
		}
		msg := fmt.Sprintf("%s has 1 problem; fix it and %s: %s", describeDoc(name), RunAgain, r.problems[0].Message)
		if n > 1 {
			msg = fmt.Sprintf("%s has %d problems (%s); fix them and %s. The first: %s", describeDoc(name), n, listed(n, r.dropped), RunAgain, r.problems[0].Message)
		}
		return r.salvage(doc.ID), &Error{
			Code:     CodeValidationFailed,
			Message:  msg,
			Problems: r.problems,
			Unlisted: r.dropped,
			NotPlan:  len(r.items) == 0 && !r.docIDSet && !r.listsKeys,
		}
	}

	doc.Defaults = r.defaults
	doc.Items = make([]Item, 0, len(r.items))
	for _, it := range r.items {
		item := it.withDefaults(r.defaults)
		if it.Kind == KindSubtask {
			doc.Subtasks = append(doc.Subtasks, item)
		} else {
			doc.Items = append(doc.Items, item)
		}
	}
	return doc, nil
}

// salvage is, for a document finish found problems in, the document of
// the items that can still be checked further (Options.ParseChecked), or
// nil.
func (r *result) salvage(id string) *Document {
	if id == "" {
		return nil
	}
	badID, badKey, badRemoved := map[string]bool{}, map[string]bool{}, false
	for _, p := range r.problems {
		switch p.Field {
		case "id":
			badID[p.Item] = true
		case keyName:
			badKey[p.Item] = true
		case "removed":
			badRemoved = true
		}
	}
	kinds := map[string]string{}
	var keep []*rawItem
	for _, it := range r.items {
		if it.noID || badID[it.ID] || !ValidID(it.ID) || kinds[it.ID] != "" {
			continue
		}
		kinds[it.ID] = it.Kind
		keep = append(keep, it)
	}
	doc := &Document{ID: id, Title: r.title, Removed: r.removed, Defaults: r.defaults}
	if badRemoved {
		doc.Removed = ""
	}
	local := func(links []Link) []Link {
		return slices.DeleteFunc(slices.Clone(links), func(l Link) bool { return l.Kind == LinkItem && kinds[l.Target] == "" })
	}
	for _, it := range keep {
		item := it.withDefaults(r.defaults)
		if item.Epic != "" && kinds[item.Epic] != KindEpic {
			item.Epic = ""
		}
		if badKey[item.ID] {
			item.Key, item.KeyLine = "", 0
		}
		item.DependsOn, item.Blocks = local(item.DependsOn), local(item.Blocks)
		switch {
		case item.Kind != KindSubtask:
			doc.Items = append(doc.Items, item)
		case kinds[item.Story] == KindStory:
			doc.Subtasks = append(doc.Subtasks, item)
		}
	}
	if len(doc.Items) == 0 {
		return nil
	}
	return doc
}

// otherDocEpic handles a story's "Epic:" line that names a reference
// (<document id>/<item id>): into this document it is the item's id;
// into another document it is the story's EpicRef (true: nothing more to
// check here). A malformed reference, or one a story under an epic
// heading also has, is a problem (true).
func (r *result) otherDocEpic(docID string, it *rawItem) bool {
	d, id, ok := strings.Cut(it.epicRef, "/")
	if !ok {
		return false
	}
	switch {
	case !ValidID(d) || !ValidID(id):
		r.addf(it.ID, "epic", it.epicRefLine, "Story %s names epic %q at line %d, which is not a valid reference; write an epic id of this document (e-1) or <document id>/<epic id> for an epic of another document (infra-q1/e-1)", it.ID, it.epicRef, it.epicRefLine)
		return true
	case d == docID:
		it.epicRef = id
		return false
	case it.parent != "":
		r.addf(it.ID, "epic", it.epicRefLine, "Story %s sits under epic %s (line %d) but its Epic: line names %s, an epic of another document; remove the Epic: line or move the story out from under epic %s", it.ID, it.parent, it.parentLine, it.epicRef, it.parent)
		return true
	}
	it.Epic, it.EpicRef, it.EpicRefLine = "", it.epicRef, it.epicRefLine
	return true
}

func (r *result) idKeyHint() string {
	if r.format == formatYAML {
		return "a top-level `id:`"
	}
	return "front matter (\"---\", \"id: <document id>\", \"---\" as the first lines)"
}

func describeDoc(name string) string {
	if d := displayName(name); d != "The document" {
		return fmt.Sprintf("The planning document %q", d)
	}
	return "The planning document"
}

func headingPrefix(it *rawItem) string {
	if it.Kind == KindSubtask {
		return "####"
	}
	if it.Kind == KindStory && it.parent != "" {
		return "###"
	}
	return "##"
}

func exampleID(kind string) string {
	if kind == KindEpic {
		return "e-1"
	}
	if kind == KindSubtask {
		return "t-1"
	}
	return "s-1"
}

// idFromName derives a document id from a file name: the base name
// without extension, with every run of characters an id may not hold
// replaced by '-', trimmed to a letter or digit at the start and at most
// 64 characters.
func idFromName(name string) string {
	if name == "" {
		return ""
	}
	base := filepath.Base(name)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var b strings.Builder
	dash := false
	for _, c := range base {
		ok := c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-')
		if ok {
			b.WriteRune(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.TrimLeft(b.String(), "._-")
	if len(id) > 64 {
		id = id[:64]
	}
	id = strings.TrimRight(id, "-")
	if !ValidID(id) {
		return ""
	}
	return id
}

// checkText rejects binary and non-UTF-8 input (naming the line), drops a
// UTF-8 byte order mark and normalises CRLF and CR line endings to LF.
func checkText(name string, data []byte) ([]byte, *Error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(data, '\r') >= 0 {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		line := lineAt(data, i)
		return nil, &Error{Code: CodeSourceParseFailed, Line: line, Message: fmt.Sprintf("%s contains a NUL byte at line %d, so it looks like a binary file, not a planning document; save it as UTF-8 text", nameOrDoc(name), line)}
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		line := lineAt(data, i)
		return nil, &Error{Code: CodeSourceParseFailed, Line: line, Message: fmt.Sprintf("%s is not valid UTF-8 text (first bad byte at line %d); save it with UTF-8 encoding", nameOrDoc(name), line)}
	}
	return data, nil
}

func nameOrDoc(name string) string {
	if d := displayName(name); d != "The document" {
		return d
	}
	return "The document"
}

// lineAt returns the 1-based line of byte offset i.
func lineAt(data []byte, i int) int {
	if i > len(data) {
		i = len(data)
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// isControl reports a C0 control character other than tab, or DEL.
func isControl(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }
