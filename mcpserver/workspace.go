package mcpserver

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// readSource resolves p inside the workspace (resolveInside) and reads
// the document there with service.ReadDocument (the parser's size cap), or,
// when it is a directory, every planning document in it with
// core.ReadDocuments, which does not follow symbolic links, so nothing
// outside the directory is read.
func readSource(workspace, p string) (string, []byte, *service.DocumentSet, error) {
	resolved, err := resolveInside(workspace, p)
	if err != nil {
		return "", nil, nil, err
	}
	if fi, err := os.Stat(resolved); err == nil && fi.IsDir() {
		set, err := service.ReadDocuments(resolved)
		return resolved, nil, set, err
	}
	data, err := service.ReadDocument(resolved)
	if err != nil {
		return "", nil, nil, err
	}
	return resolved, data, nil, nil
}

// resolveInside resolves p (relative to the workspace, or absolute) and
// every symlink on it first, and refuses (SOURCE_NOT_FOUND, saying why) a
// path that does not exist or resolves outside the workspace.
func resolveInside(workspace, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", core.Errorf(core.CodeSourceNotFound,
			"No document path was given; pass path, the planning document's path relative to the workspace (e.g. plans/checkout-v2.md).").
			WithDetails(core.Detail{Field: "path", Message: "empty"})
	}
	if strings.ContainsRune(p, 0) {
		return "", core.Errorf(core.CodeSourceNotFound, "The document path contains a NUL byte; pass a plain file path.").
			WithDetails(core.Detail{Field: "path", Message: "contains a NUL byte"})
	}
	ws, err := workspaceDir(workspace)
	if err != nil {
		return "", err
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
		return "", core.Errorf(core.CodeSourceNotFound,
			"%s %s. Paths are resolved relative to the workspace %s; check the path.", p, msg, ws).
			WithDetails(core.Detail{Field: "path", Message: msg})
	}
	if !within(ws, resolved) {
		why := "is outside the workspace " + ws
		if resolved != filepath.Clean(abs) {
			why = "resolves (through a symbolic link) to " + resolved + ", outside the workspace " + ws
		}
		return "", core.Errorf(core.CodeSourceNotFound,
			"%s %s. The MCP server reads only documents inside the workspace (the folder holding .devworkwire.yaml); move or copy the document into it.", p, why).
			WithDetails(core.Detail{Field: "path", Message: "outside the workspace"})
	}
	return resolved, nil
}

// workspaceDir is the workspace, absolute and with symlinks resolved.
func workspaceDir(ws string) (string, error) {
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

func reason(err error) string { return core.FSReason(err) }
