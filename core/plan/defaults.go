package plan

import (
	"go.yaml.in/yaml/v3"
)

// SourceConfig is the source of a project's defaults (ParseDefaults).
const SourceConfig Source = "config"

// ParseDefaults reads a project's defaults: v is a YAML mapping with the
// keys of a document's `defaults:` (labels, priority, …, fields), as a
// configuration file holds it; name is what messages call it (".devworkwire.yaml
// `defaults:`"). Every field read has the source SourceConfig; apply them
// to an item's fields with Fields.WithDefaults. Problems are returned all
// at once (nil when there are none), with the lines of v.
func (o Options) ParseDefaults(name string, v *yaml.Node) (Fields, []Problem) {
	r := &result{format: formatYAML, opts: &o}
	r.readDefaultsOf(v, 0, defaultsOf{name, name, SourceConfig})
	return r.defaults, r.problems
}
