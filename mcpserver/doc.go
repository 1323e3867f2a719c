// Package mcpserver is DevWorkWire's front door for AI agents: an MCP
// server over stdio that exposes the core WorkItemService as six tools
// (import.preview, import.commit, progress.preview, progress.commit,
// workitem.get, workitem.query). It adds no behaviour of its own beyond
// protocol concerns: schemas, the JSON-RPC error channel, workspace
// confinement of document paths, progress notifications and (where the
// client can ask) a person's confirmation before a commit.
package mcpserver
