package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/google/jsonschema-go/jsonschema"
)

// TestArgValidatorCompilesLazily: registering schemas compiles nothing;
// the first check compiles them all once, and the verdicts are the same
// as an eager compile would give.
func TestArgValidatorCompilesLazily(t *testing.T) {
	v := newArgValidator()
	v.add("t1", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"limit": {Type: "integer", Maximum: ptr(100.0)}}, Required: []string{"limit"}})
	v.add("t2", &jsonschema.Schema{Type: "object"})
	if v.schemas != nil {
		t.Fatal("schemas compiled at registration; want them compiled on first use")
	}
	if err := v.check("t1", json.RawMessage(`{"limit":5}`)); err != nil {
		t.Fatalf("valid arguments: %v", err)
	}
	if len(v.schemas) != 2 {
		t.Fatalf("after the first check %d schemas are compiled; want all 2", len(v.schemas))
	}
	err := v.check("t1", json.RawMessage(`{"limit":500}`))
	if core.ErrorCode(err) != core.CodeValidationFailed || len(err.Details) != 1 || err.Details[0].Field != "limit" {
		t.Fatalf("limit 500: %v; want VALIDATION_FAILED on field limit", err)
	}
	if err := v.check("unknown", json.RawMessage(`{}`)); err != nil {
		t.Fatalf("unknown tool: %v; want nil (the SDK reports it)", err)
	}
}

// TestArgValidatorBadSchemaIsInternal: a schema that cannot compile is an
// INTERNAL error on use, never a panic.
func TestArgValidatorBadSchemaIsInternal(t *testing.T) {
	v := newArgValidator()
	v.raw["bad"] = []byte(`{"type":"object","pattern":"("}`)
	err := v.check("bad", json.RawMessage(`{}`))
	if core.ErrorCode(err) != core.CodeInternal {
		t.Fatalf("bad schema: %v; want INTERNAL", err)
	}
}

// BenchmarkNewServer is what building the server costs now that the tool
// schemas are compiled on first use.
func BenchmarkNewServer(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = New(&fakeService{}, Options{})
	}
}

// BenchmarkCompileToolSchemas is the work moved from server construction
// to the first tool call: compiling every tool's input schema.
func BenchmarkCompileToolSchemas(b *testing.B) {
	s, _ := newServer(b.Context(), &fakeService{}, Options{})
	if len(s.args.raw) != len(toolNames) {
		b.Fatalf("%d schemas registered; want %d", len(s.args.raw), len(toolNames))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for tool, raw := range s.args.raw {
			if _, err := compileSchema(tool, raw); err != nil {
				b.Fatal(err)
			}
		}
	}
}
