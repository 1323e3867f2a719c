package core

import "github.com/devworkwire/devworkwire/core/plan"

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
