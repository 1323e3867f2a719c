// Package adf converts between Markdown (CommonMark with the GFM tables,
// strikethrough, task lists and autolinks extensions, parsed by goldmark)
// and the Atlassian Document Format that Jira Cloud stores descriptions and
// comments in.
//
// FromMarkdown emits only documents that validate against the official ADF
// schema and obey ADF's structural rules; ToMarkdown renders every node Jira
// may return, degrading what Markdown cannot express to readable text. For
// Markdown m, FromMarkdown(ToMarkdown(FromMarkdown(m))) equals
// FromMarkdown(m).
package adf
