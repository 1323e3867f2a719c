// Package jira is the Jira Cloud (REST API v3) implementation of
// core.WorkItemProvider: the only code in DevWorkWire that knows Jira.
//
// It discovers the reference field and issue types once per Provider,
// finds items by reference with phrase searches on POST /search/jql (every
// page read, exact comparison in Go; keys the caller already knows but
// search has not indexed yet are read with POST /issue/bulkfetch), creates
// them in bulk (≤ 50 per
// request) with the content digest in the "devworkwire" issue property,
// edits, transitions and comments on them, and translates every Jira
// answer into the core error taxonomy. Creates are never resent blindly: an
// unknown outcome is settled by reading the keys created since the batch's
// floor (settle.go; searching when there is none), and reported as unknown
// when nothing holds the reference. Retries (429/5xx, idempotent requests only)
// use exponential backoff with full jitter and honour Retry-After.
// Check also verifies the project permissions (GET /mypermissions). Log
// lines carry the service's run id (core.RunIDFrom) and each call that
// retried logs one summary.
// Descriptions and comments are converted with jira/adf.
package jira
