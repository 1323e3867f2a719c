//go:build unix

package mcpserver

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// TestFIFODocumentDoesNotHang: a named pipe called *.md inside the
// workspace is refused at once (no writer ever opens it), and the server
// keeps serving; it used to block import_preview, and with it SIGTERM.
func TestFIFODocumentDoesNotHang(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe.md"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	svc := &fakeService{}
	c := connect(t, svc, Options{Workspace: ws}, nil, "")
	done := make(chan error, 1)
	go func() {
		_, err := c.call(t, ToolImportPreview, map[string]any{"path": "pipe.md"})
		done <- err
	}()
	select {
	case err := <-done:
		data := wantCode(t, err, core.CodeSourceNotFound)
		if msg := data["message"].(string); !strings.Contains(msg, "pipe.md") {
			t.Errorf("message %q does not name the file", msg)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("import_preview of a FIFO hangs")
	}
	if svc.called("ImportPreview") != 0 {
		t.Error("the service was called for a FIFO")
	}
	c.mustCall(t, ToolWorkItemGet, map[string]any{"item": "DEMO-7"})
}
