// Package plan parses and validates DevWorkWire planning documents: epics,
// stories and their acceptance criteria, written in Markdown (the primary
// form) or in an equivalent YAML form. Both forms produce the same
// Document. Parse reports every validation problem at once; the format is
// described in docs/plan-format.md. Items may also carry fields (labels,
// priority, …, custom fields named in Options); they are parsed and
// validated here and not yet written anywhere, as are dependencies
// (Depends on / Blocks), sub-tasks (Document.Subtasks) and the sprint.
//
// plan imports no other workspace package, so the core package can use it.
package plan
