package mcpserver

import (
	"encoding/json"
	"strings"
)

// The server's entry in the official MCP registry (server.json, schema
// 2025-09-29; mcpserver/testdata/registry holds a copy of the schema).
const (
	// RegistryName is the server's name in the registry (reverse DNS of
	// the GitHub namespace). The container image carries it as the label
	// io.modelcontextprotocol.server.name, which the registry checks.
	RegistryName = "io.github.devworkwire/devworkwire"
	// ServerSchemaURL is the registry schema server.json follows.
	ServerSchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
	// Image is the FROM scratch image of dwire the entry installs.
	Image = "ghcr.io/devworkwire/dwire"
)

type registryArg struct {
	Type        string                   `json:"type"`
	Name        string                   `json:"name,omitempty"`
	Value       string                   `json:"value,omitempty"`
	Description string                   `json:"description,omitempty"`
	Variables   map[string]registryInput `json:"variables,omitempty"`
}

type registryInput struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Format      string `json:"format,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
}

// ServerJSON returns the registry entry (server.json) for the given build
// version: the stdio package (the container image, run as `docker run -i
// --rm -e JIRA_API_TOKEN -v <project>:/work -w /work <image> mcp`) and the
// environment it needs, the token marked secret. `dwire mcp --server-json`
// prints it for the running build.
func ServerJSON(buildVersion string) ([]byte, error) {
	v := strings.TrimPrefix(version(buildVersion), "v")
	doc := map[string]any{
		"$schema":     ServerSchemaURL,
		"name":        RegistryName,
		"description": "Put planning documents into Jira exactly once, behind a preview, confirm, commit gate.",
		"version":     v,
		"repository":  map[string]string{"url": "https://github.com/devworkwire/devworkwire", "source": "github"},
		"packages": []map[string]any{{
			"registryType": "oci",
			"identifier":   Image,
			"version":      v,
			"runtimeHint":  "docker",
			"transport":    map[string]string{"type": "stdio"},
			"runtimeArguments": []registryArg{
				{Type: "named", Name: "-v", Value: "{project}:/work", Description: "the project folder (holding .devworkwire.yaml and the documents) as the workspace",
					Variables: map[string]registryInput{"project": {Description: "absolute path of the project folder", Format: "filepath", IsRequired: true}}},
				{Type: "named", Name: "-w", Value: "/work", Description: "start in the workspace, where .devworkwire.yaml is found"},
			},
			"packageArguments": []registryArg{{Type: "positional", Value: "mcp", Description: "run the MCP server on stdio"}},
			"environmentVariables": []registryInput{
				{Name: "JIRA_API_TOKEN", Description: "Jira Cloud API token of the person the agent works for (the variable jira.token_env names; default JIRA_API_TOKEN)", IsRequired: true, IsSecret: true},
				{Name: "DWIRE_CONFIG", Description: "path of .devworkwire.yaml inside the container, when it is not in /work or above", Format: "filepath"},
			},
		}},
	}
	return json.MarshalIndent(doc, "", "  ")
}
