package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/google/jsonschema-go/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// argValidator checks tool arguments against the advertised input
// schemas before the SDK does, so that a bad argument is reported as
// VALIDATION_FAILED with one detail per offending field ("limit: maximum:
// got 500, want 100") instead of the SDK's single opaque string.
type argValidator struct {
	schemas map[string]*sjs.Schema
	printer *message.Printer
}

func newArgValidator() *argValidator {
	return &argValidator{schemas: map[string]*sjs.Schema{}, printer: message.NewPrinter(language.English)}
}

func (v *argValidator) add(tool string, s *jsonschema.Schema) {
	b, err := json.Marshal(s)
	if err != nil {
		panic("mcpserver: input schema of " + tool + ": " + err.Error())
	}
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		panic("mcpserver: input schema of " + tool + ": " + err.Error())
	}
	c := sjs.NewCompiler()
	url := "urn:dwire:tool:" + tool
	if err := c.AddResource(url, doc); err != nil {
		panic("mcpserver: input schema of " + tool + ": " + err.Error())
	}
	sch, err := c.Compile(url)
	if err != nil {
		panic("mcpserver: input schema of " + tool + ": " + err.Error())
	}
	v.schemas[tool] = sch
}

// check returns nil when args are valid for tool (or tool is unknown: the
// SDK reports that).
func (v *argValidator) check(tool string, args json.RawMessage) *core.Error {
	sch, ok := v.schemas[tool]
	if !ok {
		return nil
	}
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return core.Errorf(core.CodeValidationFailed, "The arguments to %s are not valid JSON; send a JSON object matching the tool's inputSchema.", tool).
			WithDetails(core.Detail{Field: "arguments", Message: "not valid JSON"})
	}
	if _, isObject := inst.(map[string]any); !isObject {
		return core.Errorf(core.CodeValidationFailed, "The arguments to %s must be a JSON object, not %s.", tool, jsonType(inst)).
			WithDetails(core.Detail{Field: "arguments", Message: "must be an object"})
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*sjs.ValidationError)
	if !ok {
		return core.Errorf(core.CodeValidationFailed, "The arguments to %s do not match its inputSchema. Check the schema and call it again.", tool)
	}
	var details []core.Detail
	v.leaves(ve, &details)
	var parts []string
	for _, d := range details {
		parts = append(parts, d.Field+": "+d.Message)
	}
	return core.Errorf(core.CodeValidationFailed, "The arguments to %s do not match its inputSchema: %s. Fix them and call %s again.",
		tool, strings.Join(parts, "; "), tool).WithDetails(details...)
}

func (v *argValidator) leaves(e *sjs.ValidationError, out *[]core.Detail) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			v.leaves(c, out)
		}
		return
	}
	field := strings.Join(e.InstanceLocation, ".")
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, core.Detail{Field: join(field, m), Message: "required, but missing"})
		}
		return
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, core.Detail{Field: join(field, p), Message: "not an argument of this tool"})
		}
		return
	}
	if field == "" {
		field = "arguments"
	}
	*out = append(*out, core.Detail{Field: field, Message: e.ErrorKind.LocalizedString(v.printer)})
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return fmt.Sprintf("a %T", v)
	}
}
