package service

import (
	yaml "go.yaml.in/yaml/v3"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// The document formats, as the front doors name them: the export writes
// either, and a person may say "md" or "yml" (FormatName).
const (
	FormatMarkdown = plan.FormatMarkdown
	FormatYAML     = plan.FormatYAML
)

// FormatOf is the document format a file name's extension stands for
// (FormatMarkdown for .md and .markdown, FormatYAML for .yaml and .yml,
// any case), "" for none.
func FormatOf(name string) string { return plan.FormatOf(name) }

// FormatName is the format a name a person gives stands for ("md" is
// FormatMarkdown, "yml" FormatYAML, any case); anything else comes back
// trimmed and lower-cased for the caller to refuse.
func FormatName(s string) string { return plan.FormatName(s) }

// ValidDocumentID reports whether id can be a document's id (1 to 64
// letters, digits, '.', '_' or '-', starting with a letter or digit), as
// the front doors check an id a person gives before anything runs.
func ValidDocumentID(id string) bool { return plan.ValidID(id) }

// FieldDefaults are a project's field defaults (FieldOptions.Defaults),
// as ParseDefaults reads them from a configuration file.
type FieldDefaults = plan.Fields

// ParseDefaults reads a configuration's `defaults:` block (v; name says
// where it is, for messages) with the declared custom field names: the
// defaults, or one Detail per problem (its field as the block names it).
func ParseDefaults(custom []string, name string, v *yaml.Node) (FieldDefaults, []core.Detail) {
	d, problems := plan.Options{CustomFields: custom}.ParseDefaults(name, v)
	if len(problems) == 0 {
		return d, nil
	}
	details := make([]core.Detail, len(problems))
	for i, p := range problems {
		details[i] = core.Detail{Field: p.Field, Line: p.Line, Message: p.Message}
	}
	return d, details
}
