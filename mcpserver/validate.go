package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

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
//
// Schemas are compiled lazily, once, on the first check: starting a server
// (or a dwire command that never validates a tool call) does not pay for
// compiling them.
type argValidator struct {
	raw     map[string][]byte // tool → its input schema as JSON
	once    sync.Once
	schemas map[string]*sjs.Schema
	err     error // a schema that did not compile (a programming error)
	printer *message.Printer
}

func newArgValidator() *argValidator {
	return &argValidator{raw: map[string][]byte{}, printer: message.NewPrinter(language.English)}
}

// add records tool's input schema; it is compiled on first use. Call it
// before the first check (the server registers every tool at start).
func (v *argValidator) add(tool string, s *jsonschema.Schema) {
	b, err := json.Marshal(s)
	if err != nil {
		panic("mcpserver: input schema of " + tool + ": " + err.Error())
	}
	v.raw[tool] = b
}

// compile compiles every recorded schema, once.
func (v *argValidator) compile() error {
	v.once.Do(func() {
		v.schemas = make(map[string]*sjs.Schema, len(v.raw))
		for tool, b := range v.raw {
			sch, err := compileSchema(tool, b)
			if err != nil {
				v.err = err
				return
			}
			v.schemas[tool] = sch
		}
	})
	return v.err
}

func compileSchema(tool string, b []byte) (*sjs.Schema, error) {
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("mcpserver: input schema of %s: %w", tool, err)
	}
	c := sjs.NewCompiler()
	url := "urn:dwire:tool:" + tool
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("mcpserver: input schema of %s: %w", tool, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: input schema of %s: %w", tool, err)
	}
	return sch, nil
}

// check returns nil when args are valid for tool (or tool is unknown: the
// SDK reports that).
func (v *argValidator) check(tool string, args json.RawMessage) *core.Error {
	if _, ok := v.raw[tool]; !ok {
		return nil
	}
	if err := v.compile(); err != nil {
		return core.Wrap(err, core.CodeInternal, "The input schema of %s could not be compiled, so its arguments cannot be checked. Report this with the server log.", tool)
	}
	sch := v.schemas[tool]
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
	*out = append(*out, core.Detail{Field: field, Message: e.ErrorKind.LocalizedString(v.printer) + enumHint(e.ErrorKind)})
}

// enumHint is " (did you mean x?)" when a string is not one of an enum's
// strings but close to one (core.Closest): "sub-task" for subtask.
func enumHint(k sjs.ErrorKind) string {
	en, ok := k.(*kind.Enum)
	if !ok {
		return ""
	}
	got, ok := en.Got.(string)
	if !ok {
		return ""
	}
	var known []string
	for _, w := range en.Want {
		if s, ok := w.(string); ok {
			known = append(known, s)
		}
	}
	if c := core.Closest(got, known); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
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
