// Package mcpserver is DevWorkWire's front door for AI agents: an MCP
// server over stdio that exposes the core WorkItemService as tools
// (import_preview, import_commit, progress_preview, progress_commit,
// workitem_get, workitem_query, document_export, pull_preview,
// pull_commit; the dotted names of the first releases are deprecated
// aliases of the first six). It adds no behaviour of its own beyond
// protocol concerns: schemas, the JSON-RPC error channel, workspace
// confinement of document paths, bounded results, progress notifications,
// cancellation, answering every request read before stdin ends, and
// (where the client can ask) a person's confirmation before a commit.
package mcpserver
