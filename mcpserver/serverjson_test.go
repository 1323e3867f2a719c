package mcpserver

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// registrySchema compiles the official registry's published server.json
// schema (a copy, with its MIT licence, in testdata/registry).
func registrySchema(t *testing.T) *sjs.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "registry", "server.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if id := doc.(map[string]any)["$id"]; id != ServerSchemaURL {
		t.Fatalf("testdata schema is %v, want %s", id, ServerSchemaURL)
	}
	c := sjs.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(ServerSchemaURL, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(ServerSchemaURL)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// validateServerJSON validates b against the registry schema.
func validateServerJSON(t *testing.T, sch *sjs.Schema, b []byte) error {
	t.Helper()
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func TestServerJSONMatchesTheRegistrySchema(t *testing.T) {
	sch := registrySchema(t)
	for _, v := range []string{"v0.4.0", "1.2.3-rc.1", "", "(devel)"} {
		b, err := ServerJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateServerJSON(t, sch, b); err != nil {
			t.Errorf("version %q: server.json does not match the registry schema: %v\n%s", v, err, b)
		}
		var doc struct {
			Name, Version string
			Packages      []struct {
				Identifier, Version string
				Transport           struct{ Type string }
				PackageArguments    []struct{ Value string }
				EnvironmentVars     []struct {
					Name     string
					IsSecret bool
				} `json:"environmentVariables"`
			}
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimPrefix(version(v), "v")
		if doc.Name != RegistryName || doc.Version != want || len(doc.Packages) != 1 {
			t.Fatalf("%q: %+v", v, doc)
		}
		p := doc.Packages[0]
		if p.Identifier != Image || p.Version != want || p.Transport.Type != "stdio" || len(p.PackageArguments) != 1 || p.PackageArguments[0].Value != "mcp" {
			t.Errorf("%q: package %+v", v, p)
		}
		secret := false
		for _, e := range p.EnvironmentVars {
			if e.Name == "JIRA_API_TOKEN" && e.IsSecret {
				secret = true
			}
		}
		if !secret {
			t.Errorf("%q: JIRA_API_TOKEN is not a secret environment variable: %+v", v, p.EnvironmentVars)
		}
	}
}

// TestRegistrySchemaRejects: the copy of the schema really constrains
// (a check that passes everything proves nothing).
func TestRegistrySchemaRejects(t *testing.T) {
	sch := registrySchema(t)
	good, _ := ServerJSON("1.0.0")
	for name, edit := range map[string]func(map[string]any){
		"no name":          func(m map[string]any) { delete(m, "name") },
		"dotless name":     func(m map[string]any) { m["name"] = "devworkwire" },
		"long description": func(m map[string]any) { m["description"] = strings.Repeat("x", 101) },
		"latest package":   func(m map[string]any) { m["packages"].([]any)[0].(map[string]any)["version"] = "latest" },
	} {
		var m map[string]any
		_ = json.Unmarshal(good, &m)
		edit(m)
		b, _ := json.Marshal(m)
		if validateServerJSON(t, sch, b) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
