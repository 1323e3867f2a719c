package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/streamtest"
)

// hostToolName is what Claude Desktop / claude.ai accept (a host that
// rejects one name hides the whole server); OpenAI's tool API requires
// ^[a-zA-Z0-9_-]+$, which this implies.
var hostToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestEveryListedToolNameIsAcceptedByHosts(t *testing.T) {
	for _, proto := range protocols {
		c := connect(t, &fakeService{}, Options{}, nil, proto)
		res, err := c.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != len(toolNames) {
			t.Fatalf("%s: listed %d tools, want %d", proto, len(res.Tools), len(toolNames))
		}
		for _, tl := range res.Tools {
			if !hostToolName.MatchString(tl.Name) {
				t.Errorf("%s: tool name %q does not match %s", proto, tl.Name, hostToolName)
			}
			if _, dotted := deprecatedNames[tl.Name]; dotted {
				t.Errorf("%s: deprecated name %q is listed", proto, tl.Name)
			}
		}
	}
}

// TestDeprecatedDottedNamesStillWork: every dotted name of the first
// releases is still callable (same tool, same result), not listed, and
// each such call is logged as deprecated on its one log line.
func TestDeprecatedDottedNamesStillWork(t *testing.T) {
	// The six tools of the first releases each keep their dotted alias;
	// tools added since never had one.
	firstReleases := []string{ToolImportPreview, ToolImportCommit, ToolProgressPreview, ToolProgressCommit, ToolWorkItemGet, ToolWorkItemQuery}
	if len(deprecatedNames) != len(firstReleases) {
		t.Fatalf("%d aliases for %d tools of the first releases", len(deprecatedNames), len(firstReleases))
	}
	aliased := map[string]bool{}
	for _, n := range deprecatedNames {
		aliased[n] = true
	}
	for _, n := range firstReleases {
		if !aliased[n] {
			t.Errorf("%s has no dotted alias", n)
		}
	}
	dir := t.TempDir()
	writeFile(t, dir, "plan.md", "# Plan\n")
	args := map[string]map[string]any{
		ToolImportPreview:   {"path": "plan.md"},
		ToolImportCommit:    {"preview_handle": "h-import", "confirmed": true},
		ToolProgressPreview: {"item": "DEMO-7", "status": "in_progress"},
		ToolProgressCommit:  {"preview_handle": "h-progress", "confirmed": true},
		ToolWorkItemGet:     {"item": "DEMO-7"},
		ToolWorkItemQuery:   {},
	}
	for old, name := range deprecatedNames {
		logs := &streamtest.Buffer{}
		logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
		c := connect(t, &fakeService{}, Options{Workspace: dir, Elicitation: ElicitationOff, Logger: logger}, nil, "")
		viaOld, err := c.call(t, old, args[name])
		if err != nil {
			t.Fatalf("%s: %v", old, err)
		}
		viaNew := c.mustCall(t, name, args[name])
		var m map[string]any
		b, _ := json.Marshal(viaOld.StructuredContent)
		_ = json.Unmarshal(b, &m)
		if fmt.Sprint(m["result_type"]) != fmt.Sprint(viaNew["result_type"]) || m["run_id"] != viaNew["run_id"] {
			t.Errorf("%s and %s give different results: %v / %v", old, name, m, viaNew)
		}
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], `"deprecated_name":"`+old+`"`) || !strings.Contains(lines[0], "use "+name) || strings.Contains(lines[1], "deprecated") {
			t.Errorf("%s: log lines:\n%s", old, logs.String())
		}
	}
	// Unknown names are still refused, listing the current names only.
	c := connect(t, &fakeService{}, Options{}, nil, "")
	_, err := c.call(t, "import.delete", map[string]any{})
	data := wantCode(t, err, core.CodeValidationFailed)
	if msg := data["message"].(string); strings.Contains(msg, "import.preview") || !strings.Contains(msg, ToolImportPreview) {
		t.Errorf("message %q", msg)
	}
}
