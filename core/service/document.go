package service

import (
	"errors"
	"path/filepath"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// ReadDocument reads a planning document from path for a preview: a
// regular file of a supported kind within plan.MaxSize. Its errors are in
// the taxonomy (SOURCE_NOT_FOUND, SOURCE_PARSE_FAILED, …), so a front door
// can show them as they are; front doors read documents only through it.
func ReadDocument(path string) ([]byte, error) {
	b, err := plan.ReadFile(path)
	if err != nil {
		return nil, planError(err)
	}
	return b, nil
}

// planError converts a parser error into the taxonomy.
func planError(err error) error {
	var pe *plan.Error
	if !errors.As(err, &pe) {
		return core.Wrap(err, core.CodeInternal, "The planning document could not be read.")
	}
	code := core.Code(pe.Code)
	if !code.Known() {
		code = core.CodeSourceParseFailed
	}
	e := core.Errorf(code, "%s", pe.Message)
	e.Err = err
	if pe.Line > 0 && len(pe.Problems) == 0 {
		e.Details = append(e.Details, core.Detail{Line: pe.Line, Message: pe.Message})
	}
	for _, p := range pe.Problems {
		e.Details = append(e.Details, core.Detail{Item: p.Item, File: p.File, Field: p.Field, Line: p.Line, Message: p.Message})
	}
	return e
}

// SamePath reports whether two document paths name the same file: equal
// once cleaned, or equal once symbolic links are resolved (the MCP server
// resolves them; a shell's working directory may not have).
func SamePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
