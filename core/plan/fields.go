package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hbollon/go-edlib"
)

// FieldState says whether the document manages a field. The zero state
// is FieldUnset: a field the document never sets is not managed, so it is
// neither written nor compared.
type FieldState string

// The field states.
const (
	FieldUnset   FieldState = ""        // not managed
	FieldSet     FieldState = "set"     // managed, with a value
	FieldCleared FieldState = "cleared" // managed and to be empty ("none")
)

// Source says where a field's value came from. Labels merged from an item
// and a default name both, joined by "+" ("item+document").
type Source string

// The sources the parser sets.
const (
	SourceItem     Source = "item"     // the item's field block / keys
	SourceDocument Source = "document" // the document's `defaults:`
)

// Field is one managed field of an item (or of the document's defaults).
// Value holds the value when State is FieldSet; it is the zero value
// otherwise. Line is the 1-based line that set it (0 when none).
type Field[T any] struct {
	State FieldState `json:",omitzero"`
	Value T          `json:",omitzero"`
	From  Source     `json:",omitzero"`
	Line  int        `json:",omitzero"`
}

// Managed reports whether the document sets the field (to a value or
// cleared).
func (f Field[T]) Managed() bool { return f.State != FieldUnset }

// Fields are the fields an item sets besides its title, description and
// criteria: the built-in fields and the custom fields declared by the
// caller (Options.CustomFields). The zero Fields manages nothing.
//
// Lists (Labels, Components, FixVersions) keep the document's order,
// without repeats. Estimate is a number of 0 or more. Due is a date
// written YYYY-MM-DD. Custom values are the text as written (trimmed):
// their type is known only from the tracker, so a list-valued custom
// field is split at commas by whoever resolves it. Custom is keyed by the
// name as declared in Options.CustomFields, and nil when no custom field
// is set.
type Fields struct {
	Labels      Field[[]string]          `json:",omitzero"`
	Priority    Field[string]            `json:",omitzero"`
	Assignee    Field[string]            `json:",omitzero"`
	Estimate    Field[float64]           `json:",omitzero"`
	Components  Field[[]string]          `json:",omitzero"`
	FixVersions Field[[]string]          `json:",omitzero"`
	Due         Field[string]            `json:",omitzero"`
	Sprint      Field[string]            `json:",omitzero"` // a sprint name
	Custom      map[string]Field[string] `json:",omitempty"`
}

// WithDefaults returns f with defaults d applied: every field f does not
// manage takes d's (value, "none" or unset); a field f manages keeps f's,
// "none" included. Labels are the exception: when both set labels, the
// result is d's labels followed by f's (without repeats), from both
// sources. The document's defaults are applied this way by the parser;
// apply further defaults (a project's) to the result in the same way.
func (f Fields) WithDefaults(d Fields) Fields {
	out := f
	pick := func(own, def Field[string]) Field[string] {
		if own.Managed() {
			return own
		}
		return def
	}
	pickList := func(own, def Field[[]string]) Field[[]string] {
		if own.Managed() {
			return own
		}
		def.Value = slices.Clone(def.Value)
		return def
	}
	switch {
	case f.Labels.State == FieldSet && d.Labels.State == FieldSet:
		out.Labels.Value = appendNew(slices.Clone(d.Labels.Value), f.Labels.Value...)
		out.Labels.From = f.Labels.From + "+" + d.Labels.From
	default:
		out.Labels = pickList(f.Labels, d.Labels)
	}
	out.Priority = pick(f.Priority, d.Priority)
	out.Assignee = pick(f.Assignee, d.Assignee)
	if !f.Estimate.Managed() {
		out.Estimate = d.Estimate
	}
	out.Components = pickList(f.Components, d.Components)
	out.FixVersions = pickList(f.FixVersions, d.FixVersions)
	out.Due = pick(f.Due, d.Due)
	out.Sprint = pick(f.Sprint, d.Sprint)
	if len(d.Custom) > 0 {
		out.Custom = make(map[string]Field[string], len(f.Custom)+len(d.Custom))
		for k, v := range d.Custom {
			out.Custom[k] = v
		}
		for k, v := range f.Custom {
			out.Custom[k] = v
		}
	}
	return out
}

// appendNew appends the values of add that list does not hold yet.
func appendNew(list []string, add ...string) []string {
	for _, v := range add {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// Options change how a document is parsed. The zero Options parses the
// format as documented, with no custom fields.
type Options struct {
	// CustomFields are the names of the custom fields documents may set
	// (a project's configuration declares them under `fields:`). In
	// Markdown a line "<name>: <value>" in an item's field block sets one;
	// in YAML, the item's (or the defaults') `fields:` mapping. Names match
	// case-insensitively; a name equal to a built-in field's is ignored.
	CustomFields []string
}

type valueKind int

const (
	kindText valueKind = iota
	kindList
	kindNumber
	kindDate
)

// builtinField describes one built-in field.
type builtinField struct {
	key     string   // YAML key and Problem.Field
	display string   // as written in Markdown and in messages
	names   []string // Markdown names, lower case, single-spaced
	kind    valueKind
	set     func(f *Fields, v fieldForms) // stores v into the field's member of f
}

// fieldForms is one value set for a field, in the form of each kind of
// field; a built-in field keeps the form of its kind.
type fieldForms struct {
	text   Field[string]
	list   Field[[]string]
	number Field[float64]
}

var builtinFields = []builtinField{
	{"labels", "Labels", []string{"labels"}, kindList, func(f *Fields, v fieldForms) { f.Labels = v.list }},
	{"priority", "Priority", []string{"priority"}, kindText, func(f *Fields, v fieldForms) { f.Priority = v.text }},
	{"assignee", "Assignee", []string{"assignee"}, kindText, func(f *Fields, v fieldForms) { f.Assignee = v.text }},
	{"estimate", "Estimate", []string{"estimate"}, kindNumber, func(f *Fields, v fieldForms) { f.Estimate = v.number }},
	{"components", "Components", []string{"components"}, kindList, func(f *Fields, v fieldForms) { f.Components = v.list }},
	{"fix_versions", "Fix versions", []string{"fix versions", "fix version"}, kindList, func(f *Fields, v fieldForms) { f.FixVersions = v.list }},
	{"due", "Due", []string{"due"}, kindDate, func(f *Fields, v fieldForms) { f.Due = v.text }},
	{"sprint", "Sprint", []string{"sprint"}, kindText, func(f *Fields, v fieldForms) { f.Sprint = v.text }},
}

// fieldKeys are the YAML keys of the fields, in documentation order.
var fieldKeys = []string{"labels", "priority", "assignee", "estimate", "components", "fix_versions", "due", "sprint", "fields"}

// linkKeys are the YAML keys of an item's dependencies.
var linkKeys = []string{"depends_on", "blocks"}

// fieldRef is a resolved field name: a built-in field, or a custom field
// (custom holds its declared name).
type fieldRef struct {
	builtin *builtinField
	custom  string
}

func (f fieldRef) key() string {
	if f.builtin != nil {
		return f.builtin.key
	}
	return "fields." + f.custom
}

func (f fieldRef) display() string {
	if f.builtin != nil {
		return f.builtin.display
	}
	return f.custom
}

func (f fieldRef) kind() valueKind {
	if f.builtin != nil {
		return f.builtin.kind
	}
	return kindText
}

// normName lower-cases a field name and collapses its inner whitespace.
func normName(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// markdownField resolves the name of a Markdown field line.
func (o *Options) markdownField(name string) (fieldRef, bool) {
	n := normName(name)
	for i := range builtinFields {
		if slices.Contains(builtinFields[i].names, n) {
			return fieldRef{builtin: &builtinFields[i]}, true
		}
	}
	return o.customField(name)
}

// customField resolves a custom field name as declared.
func (o *Options) customField(name string) (fieldRef, bool) {
	n := normName(name)
	if n == "" || n == "epic" || n == "drift" || n == keyName || linkNames[n] != "" {
		return fieldRef{}, false
	}
	for i := range builtinFields {
		if slices.Contains(builtinFields[i].names, n) {
			return fieldRef{}, false // a built-in name is never custom
		}
	}
	for _, c := range o.CustomFields {
		if normName(c) == n {
			return fieldRef{custom: c}, true
		}
	}
	return fieldRef{}, false
}

// declaredCustom lists the custom field names that can be used.
func (o *Options) declaredCustom() []string {
	var out []string
	for _, c := range o.CustomFields {
		if _, ok := o.customField(c); ok {
			out = append(out, c)
		}
	}
	return out
}

// didYouMeanName suggests the name in known closest to name (case-
// insensitive), as didYouMean does for keys.
func didYouMeanName(name string, known []string) string {
	lower := make([]string, len(known))
	for i, k := range known {
		lower[i] = normName(k)
	}
	s := didYouMean(normName(name), lower)
	for i, l := range lower {
		if s == fmt.Sprintf(" (did you mean %q?)", l) {
			return fmt.Sprintf(" (did you mean %q?)", known[i])
		}
	}
	return s
}

// fieldNames lists every field name a Markdown block accepts, for
// messages.
func (o *Options) fieldNames() string { return strings.Join(o.knownFields(), ", ") }

// knownFields lists the built-in fields' names and the usable custom ones.
func (o *Options) knownFields() []string {
	names := make([]string, 0, len(builtinFields)+len(o.CustomFields))
	for _, b := range builtinFields {
		names = append(names, b.display)
	}
	names = append(names, "Depends on", "Blocks")
	return append(names, o.declaredCustom()...)
}

// closeField returns the known field name that name looks like a
// misspelling of ("Priorty" → "Priority"), or "". It is strict, because
// a line it matches is an error rather than description: at most one
// edit for names of up to 4 letters, two for longer ones, or a known
// name followed by another word ("Due date"). An edit is one of the
// optimal string alignment distance (go-edlib): a swap of neighbours
// ("Tema" → "Team") counts as one.
func (o *Options) closeField(name string) string {
	n := normName(name)
	if len(n) < 2 {
		return ""
	}
	best, bestD := "", 99
	for _, c := range o.knownFields() {
		cn := normName(c)
		limit := 2
		if len(cn) <= 4 {
			limit = 1
		}
		d := edlib.OSADamerauLevenshteinDistance(n, cn)
		if strings.HasPrefix(n, cn+" ") {
			d = min(d, limit)
		}
		if d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

var (
	// fieldLineRe matches a "Name: value" line of a field block: a name
	// of letters, digits, spaces, '_' and '-' starting with a letter.
	fieldLineRe = regexp.MustCompile(`^ {0,3}([A-Za-z][A-Za-z0-9 _-]{0,39}?)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$`)
	numberRe    = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,6})?$`)
	dateRe      = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// fieldLine splits a field block line into name and value.
func fieldLine(line string) (name, value string, ok bool) {
	if len(line) > 4096 {
		return "", "", false
	}
	m := fieldLineRe.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	return strings.TrimSpace(m[1]), strings.TrimSpace(m[2]), true
}

// fieldValue is a parsed value: cleared, or one of text/list/number.
type fieldValue struct {
	cleared bool
	text    string
	list    []string
	number  float64
}

// parseText reads the text of a field (a Markdown value or a YAML
// scalar). who names the item ("Story s-1") or the defaults; shown is how
// the field was written ("Estimate: five" / "estimate: five"); problem is
// "" when the value is good, else a message.
func parseText(f fieldRef, text string, who, shown string, line int) (fieldValue, string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return fieldValue{}, fmt.Sprintf("%s has %q with no value at line %d; write a value, or \"none\" to clear the field in Jira (remove the line to leave the field alone)", who, shown, line)
	}
	if strings.EqualFold(text, "none") {
		return fieldValue{cleared: true}, ""
	}
	switch f.kind() {
	case kindList:
		var list []string
		for _, p := range strings.Split(text, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				return fieldValue{}, fmt.Sprintf("%s has an empty entry in %q at line %d; separate the values with single commas", who, shown, line)
			}
			list = appendNew(list, p)
		}
		if msg := checkList(f, list, who, line); msg != "" {
			return fieldValue{}, msg
		}
		return fieldValue{list: list}, ""
	case kindNumber:
		n, err := strconv.ParseFloat(text, 64)
		if !numberRe.MatchString(text) || err != nil {
			return fieldValue{}, fmt.Sprintf("%s has %q at line %d; %s is a number of 0 or more (such as 3 or 0.5), or none", who, shown, line, f.display())
		}
		return fieldValue{number: n}, ""
	case kindDate:
		if _, err := time.Parse(time.DateOnly, text); !dateRe.MatchString(text) || err != nil {
			return fieldValue{}, fmt.Sprintf("%s has %q at line %d; %s is a date written YYYY-MM-DD (such as 2027-03-01), or none", who, shown, line, f.display())
		}
		return fieldValue{text: text}, ""
	}
	if strings.IndexFunc(text, isControl) >= 0 {
		return fieldValue{}, fmt.Sprintf("%s has a control character in %s at line %d; remove it", who, f.display(), line)
	}
	return fieldValue{text: text}, ""
}

// checkList checks the entries of a list field.
func checkList(f fieldRef, list []string, who string, line int) string {
	for _, v := range list {
		if strings.IndexFunc(v, isControl) >= 0 {
			return fmt.Sprintf("%s has a control character in %s at line %d; remove it", who, f.display(), line)
		}
		if f.builtin != nil && f.builtin.key == "labels" && strings.ContainsAny(v, " \t") {
			return fmt.Sprintf("%s has the label %q at line %d; Jira labels cannot contain spaces. Write %q, or separate several labels with commas", who, v, line, strings.Join(strings.Fields(v), "-"))
		}
	}
	return ""
}

// fieldSetter records the fields of one item (or of the defaults),
// refusing a field set twice.
type fieldSetter struct {
	own    Fields  // storage for an item's own fields
	fields *Fields // where set writes: &own, or the document's defaults
	from   Source
	lines  map[string]int // key → line that set it
}

// set stores v for f, set at line. It returns the line of an earlier
// setting of the same field (0 when there was none, and v was stored).
func (s *fieldSetter) set(f fieldRef, v fieldValue, line int) int {
	k := f.key()
	if prev, dup := s.lines[k]; dup {
		return prev
	}
	if s.lines == nil {
		s.lines = map[string]int{}
	}
	s.lines[k] = line
	state := FieldSet
	if v.cleared {
		state = FieldCleared
	}
	text := Field[string]{State: state, Value: v.text, From: s.from, Line: line}
	if f.builtin == nil {
		if s.fields.Custom == nil {
			s.fields.Custom = map[string]Field[string]{}
		}
		s.fields.Custom[f.custom] = text
		return 0
	}
	f.builtin.set(s.fields, fieldForms{
		text:   text,
		list:   Field[[]string]{State: state, Value: v.list, From: s.from, Line: line},
		number: Field[float64]{State: state, Value: v.number, From: s.from, Line: line},
	})
	return 0
}
