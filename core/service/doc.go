// Package service is DevWorkWire's WorkItemService: the preview → confirm
// → commit gate that both front doors (the dwire CLI and the MCP server)
// wrap, and everything behind it — the import, progress, pull, export and
// review workflows, adoption, structure writes, the per-write step (fence →
// send → outcome → record) and the stored plans.
//
// It speaks the vocabulary of package core and reaches the tracker and the
// state store only through core's ports and capabilities; it imports no
// other workspace module and no driver or SDK.
package service
