// Package core is DevWorkWire's vocabulary: work items, references,
// plans, previews and runs; the one error type with its stable codes and
// the gate's refusals; the ports (WorkItemProvider for the tracker, Store
// for state, ports.go) and every optional capability a provider or store
// may add (capabilities.go). The service that enforces the preview →
// confirm → commit gate is in core/service.
//
// core imports the standard library only: no other workspace module, no
// driver or SDK.
package core
