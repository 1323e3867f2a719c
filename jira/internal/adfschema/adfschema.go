// Package adfschema validates Atlassian Document Format documents against
// the official JSON Schema (adf-schema-v1-full.json, from
// @atlaskit/adf-schema 57.7.22, Apache-2.0, Atlassian). The fake Jira uses
// it to reject invalid ADF as Jira does; the ADF converter's tests use it to
// prove every document it emits is valid.
package adfschema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed adf-schema-v1-full.json
var schemaJSON []byte

var (
	once     sync.Once
	compiled *jsonschema.Schema
	errInit  error
)

func schema() (*jsonschema.Schema, error) {
	once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			errInit = fmt.Errorf("adfschema: parse schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("adf-schema-v1-full.json", doc); err != nil {
			errInit = fmt.Errorf("adfschema: add schema: %w", err)
			return
		}
		compiled, errInit = c.Compile("adf-schema-v1-full.json")
	})
	return compiled, errInit
}

// Validate reports whether doc (JSON) is a valid ADF document. The error
// describes the first violations found. Documents of one shape (the same
// structure, other words) are checked against the schema once (shape.go).
func Validate(doc []byte) error {
	s, shape, err := load(doc)
	if err != nil {
		return err
	}
	toShape(shape) // see shape.go
	key, keyed := shapeKey(shape)
	if keyed && knownShape(key) {
		return nil
	}
	if s.Validate(shape) == nil {
		if keyed {
			rememberShape(key)
		}
		return nil
	}
	return validateFull(doc)
}

// validateFull validates doc without the shape cache (tests compare it
// with Validate).
func validateFull(doc []byte) error {
	s, inst, err := load(doc)
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("adfschema: invalid ADF: %w", err)
	}
	return nil
}

// load returns the schema and doc decoded for it.
func load(doc []byte) (*jsonschema.Schema, any, error) {
	s, err := schema()
	if err != nil {
		return nil, nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, nil, fmt.Errorf("adfschema: not JSON: %w", err)
	}
	return s, inst, nil
}
