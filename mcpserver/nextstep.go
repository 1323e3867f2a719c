package mcpserver

import (
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// withNextStep adds the MCP server's own next step to a commit tool's gate
// error that asks for a new preview: core words it for any front door
// ("run the import preview again"); here it names the tool to call. Other
// errors and tools are returned as they are.
func withNextStep(tool string, e *core.Error) *core.Error {
	if !core.AsksForNewPreview(e.Code) {
		return e
	}
	var preview string
	switch strings.ReplaceAll(tool, ".", "_") { // the dotted names are aliases
	case "import_commit":
		preview = "import_preview"
	case "progress_commit":
		preview = "progress_preview"
	case "pull_commit":
		preview = "pull_preview"
	default:
		return e
	}
	if strings.Contains(e.Message, " Next: ") {
		return e // the service already said what to do next
	}
	return e.WithNextStep("Next: call " + preview + " again, show the new plan to the person, and commit its preview_handle once they agree.")
}
