// Package core is DevWorkWire's domain: work items, references, plans and
// runs, the one error type with its stable codes, the ports the domain
// needs (WorkItemProvider for the tracker, Store for state), and
// WorkItemService, which enforces the preview → confirm → commit gate that
// both front doors (the dwire CLI and the MCP server) wrap.
//
// core imports no other workspace module and no driver or SDK.
package core
