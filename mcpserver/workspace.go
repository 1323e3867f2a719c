package mcpserver

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// readDocument resolves p inside the workspace and reads it with the
// parser's size cap. Relative paths are relative to the workspace. The
// path and every symlink on it are resolved first; a document that
// resolves outside the workspace is SOURCE_NOT_FOUND, saying why.
func (s *server) readDocument(p string) (string, []byte, error) {
	if strings.TrimSpace(p) == "" {
		return "", nil, core.Errorf(core.CodeSourceNotFound,
			"No document path was given; pass path, the planning document's path relative to the workspace (e.g. plans/checkout-v2.md).").
			WithDetails(core.Detail{Field: "path", Message: "empty"})
	}
	if strings.ContainsRune(p, 0) {
		return "", nil, core.Errorf(core.CodeSourceNotFound, "The document path contains a NUL byte; pass a plain file path.").
			WithDetails(core.Detail{Field: "path", Message: "contains a NUL byte"})
	}
	ws, err := s.workspaceDir()
	if err != nil {
		return "", nil, err
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ws, abs)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		msg := "could not be resolved (" + reason(err) + ")"
		if errors.Is(err, fs.ErrNotExist) {
			msg = "does not exist"
		}
		return "", nil, core.Errorf(core.CodeSourceNotFound,
			"%s %s. Paths are resolved relative to the workspace %s; check the path.", p, msg, ws).
			WithDetails(core.Detail{Field: "path", Message: msg})
	}
	if !within(ws, resolved) {
		why := "is outside the workspace " + ws
		if resolved != filepath.Clean(abs) {
			why = "resolves (through a symbolic link) to " + resolved + ", outside the workspace " + ws
		}
		return "", nil, core.Errorf(core.CodeSourceNotFound,
			"%s %s. The MCP server reads only documents inside the workspace (the folder holding .devworkwire.yaml); move or copy the document into it.", p, why).
			WithDetails(core.Detail{Field: "path", Message: "outside the workspace"})
	}
	data, err := plan.ReadFile(resolved)
	if err != nil {
		return "", nil, fromPlanError(err)
	}
	return resolved, data, nil
}

// workspaceDir is the workspace, absolute and with symlinks resolved.
func (s *server) workspaceDir() (string, error) {
	ws := s.workspace
	if ws == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", core.Wrap(err, core.CodeConfigInvalid, "The MCP server has no workspace and cannot determine its working directory; start it from the folder holding .devworkwire.yaml.")
		}
		ws = wd
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return "", core.Wrap(err, core.CodeConfigInvalid, "The workspace %s is not a usable path; start the server from the folder holding .devworkwire.yaml.", ws)
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", core.Wrap(err, core.CodeConfigInvalid, "The workspace %s cannot be resolved (%s); start the server from the folder holding .devworkwire.yaml.", ws, reason(err))
	}
	return r, nil
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// fromPlanError translates the parser's error (same code strings) into a
// core error, keeping every problem as a detail.
func fromPlanError(err error) error {
	var pe *plan.Error
	if !errors.As(err, &pe) {
		return core.AsError(err)
	}
	e := core.Errorf(core.Code(pe.Code), "%s", pe.Message)
	if !e.Code.Known() {
		e = core.Wrap(err, core.CodeSourceParseFailed, "%s", pe.Message)
	}
	for _, p := range pe.Problems {
		e.Details = append(e.Details, core.Detail{Item: p.Item, Field: p.Field, Line: p.Line, Message: p.Message})
	}
	return e
}
