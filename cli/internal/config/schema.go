package config

import _ "embed"

// Schema is the JSON Schema of .devworkwire.yaml (a copy of
// docs/devworkwire.schema.json; a test keeps the two identical). Editors
// use it for completion; Parse applies the same rules with messages that
// name the field and the fix.
//
//go:embed schema.json
var Schema []byte
