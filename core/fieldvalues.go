// The managed fields and the content (title, description, criteria) as
// the domain names them, and the digests the three-way comparison keeps as
// bases.

package core

import (
	"slices"
	"strings"
)

// The content keys: an item's title, description and acceptance criteria
// are each a field of the three-way merge, as the managed fields are
// (fields.go). Their bases are kept with the managed fields' in
// ItemSpec.FieldBases / WorkItem.FieldBases under these keys; what the
// tracker holds of each, compared with what DevWorkWire last wrote, is
// WorkItem.ContentChanged.
const (
	ContentTitle       = "title"
	ContentDescription = "description"
	ContentCriteria    = "acceptance_criteria"
)

// ContentFieldDigest is the digest of one content part's values, in order
// (a title or a description is one value; criteria keep their order).
func ContentFieldDigest(values ...string) string { return shortDigest(values) }

// ContentDigests are the per-part digests of an item's content (the
// description without surrounding space).
func ContentDigests(title, description string, ac []string) map[string]string {
	return map[string]string{
		ContentTitle:       ContentFieldDigest(title),
		ContentDescription: ContentFieldDigest(strings.TrimSpace(description)),
		ContentCriteria:    ContentFieldDigest(ac...),
	}
}

// The keys of the built-in managed fields (ItemSpec.Fields,
// WorkItem.Fields). A custom field's key is FieldCustomPrefix and its name
// as declared (plan.Options.CustomFields): "fields.Team".
const (
	FieldLabels      = "labels"
	FieldPriority    = "priority"
	FieldAssignee    = "assignee"
	FieldEstimate    = "estimate"
	FieldComponents  = "components"
	FieldFixVersions = "fix_versions"
	FieldDue         = "due"

	FieldCustomPrefix = "fields."
)

// FieldName is how a field key is written in documents and messages
// ("Fix versions", "Team").
func FieldName(key string) string {
	switch key {
	case FieldFixVersions:
		return "Fix versions"
	case FieldDue:
		return "Due"
	case ContentCriteria:
		return "Acceptance criteria"
	}
	if c, ok := strings.CutPrefix(key, FieldCustomPrefix); ok {
		return c
	}
	if key == "" {
		return key
	}
	return strings.ToUpper(key[:1]) + key[1:]
}

// FieldValue is one managed field's value, free of tracker vocabulary:
// its entries (one for a single-valued field), none when the document
// clears the field ("none"). In a FieldRequest the entries are as the
// document writes them (a custom field's text unsplit); in an ItemSpec and
// a WorkItem they are in the provider's canonical form (what
// FieldResolver.ResolveFields returns: an account id for a person, a
// priority as the tracker spells it, a number without trailing zeros).
type FieldValue struct {
	Values []string `json:"values"`
	// Source says where the document's value came from: item, document
	// (its defaults), config (the project's defaults), or both joined by
	// "+" for labels added to defaults.
	Source string `json:"source,omitempty"`
}

// FieldDigest is the digest of a field's canonical values, as the base of
// the three-way comparison: order and repeats do not count.
func FieldDigest(values []string) string {
	v := slices.Clone(values)
	slices.Sort(v)
	return shortDigest(slices.Compact(v))
}

// shortDigest is the digest of values in the order given (nil as empty).
func shortDigest(v []string) string {
	if v == nil {
		v = []string{}
	}
	var buf [128]byte
	return digestOf(appendJSONStrings(buf[:0], v), 12)
}

// FieldRequest asks a FieldResolver to check one item's fields.
type FieldRequest struct {
	Reference Reference
	Kind      Kind
	Create    bool   // the plan creates the item: the create screen's required fields apply
	Key       string // the tracker key of an existing item (an update: its edit screen applies)
	Fields    map[string]FieldValue
}

// MaxBaseValue bounds a base value kept with an item (ItemSpec.BaseValues):
// one key's values as JSON, in bytes. A longer one is kept as its digest
// only (FieldBases), and a conflict of it shows the tracker's value
// against the document's without what each side changed.
const MaxBaseValue = 2048
