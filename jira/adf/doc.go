// Package adf converts between Markdown (CommonMark 0.31 with the GFM
// tables, strikethrough, task list and autolink extensions, parsed by
// goldmark) and the Atlassian Document Format (ADF) that Jira Cloud stores
// descriptions and comments in.
//
//	d, err := adf.FromMarkdown(md) // Markdown -> ADF; json.Marshal(d) is Jira's JSON
//	md := adf.ToMarkdown(d)        // ADF -> Markdown
//	d, err = adf.Parse(body)       // ADF JSON as Jira returns it -> Doc
//	n := d.Size(limit)             // len of its JSON in characters, counted up to limit
//	n = adf.MarkdownSize(md, limit) // the same for md's ADF, converting only until past limit
//
// # Guarantees
//
//   - Every document FromMarkdown returns validates against the official ADF
//     JSON schema (adf-schema 57.7.22) and obeys the structural rules the
//     schema does not spell out: a list item starts with a paragraph or code
//     block, text nodes are never empty, the code mark combines only with a
//     link, a block quote holds only paragraphs, lists and code blocks.
//   - No visible text is lost: whatever ADF cannot hold at a place degrades
//     to text or a simpler structure, never disappears (see below).
//   - Round trip: for any Markdown m, FromMarkdown(ToMarkdown(FromMarkdown(m)))
//     equals FromMarkdown(m). For ADF that Markdown can express (the node
//     and mark types FromMarkdown emits), FromMarkdown(ToMarkdown(d)) equals
//     d up to invisible differences (blanks before a hard break, a trailing
//     hard break, a code line of only blanks inside a list item or quote,
//     which Markdown reads as an empty line) and the one known limit below.
//     Property tests (pgregory.net/rapid) check this on generated documents
//     with nested lists, task lists, quotes, tables, code and every mark.
//
// # Mapping
//
// Headings (ATX and setext) become heading, paragraphs paragraph (a soft
// line break is kept as "\n" in the text, as Atlassian's own transformer
// does), *em*, **strong**, ~~strike~~, `code` and links become marks,
// "-"/"*"/"+" lists bulletList, ordered lists orderedList with attrs.order
// (the start number), "- [ ]"/"- [x]" lists taskList/taskItem (state TODO/
// DONE, localIds "dwire-N", deterministic within a document), fenced and
// indented code codeBlock (language = first word of the info string),
// block quotes blockquote, thematic breaks rule, GFM tables table/tableRow/
// tableHeader/tableCell with a paragraph in each cell, hard breaks hardBreak.
// Autolinks (<https://...>, <me@example.com>, and GFM's bare www./http(s)://
// and e-mail addresses) become links (mailto: for addresses); link
// destinations are percent-encoded as CommonMark renderers do.
//
// # Degradation (nothing is dropped)
//
//   - Images become a link to the image whose text is the alt text (or the
//     address when there is none): ADF media needs an uploaded attachment.
//   - Raw HTML (blocks and inline) becomes its source text.
//   - A link with no text gets its address as text.
//   - Where ADF forbids a block: a heading in a list item or quote becomes a
//     paragraph; a nested block quote is flattened into its parent; a rule
//     there becomes the text "---"; a table there becomes one paragraph per
//     row with cells joined by " | "; a task list in a quote becomes a bullet
//     list whose items start with "[ ]"/"[x]".
//   - A list whose items are not all tasks, an ordered task list, or a task
//     with more than text and nested task lists stays a bullet/ordered list
//     with "[ ]"/"[x]" as text.
//   - A list item that starts with a list gets an empty paragraph first.
//   - Formatting ADF forbids (em/strong/strike on code) is dropped; the text
//     stays. Table column alignment is dropped.
//   - Items and block quotes with no content at all are dropped (they hold
//     no text, and Markdown cannot always say where an empty item ends).
//   - Link reference definitions are resolved into the links that use them.
//   - As in GFM, table cells beyond the header row's count are ignored.
//
// ToMarkdown renders every node type Jira may return. Jira's rich nodes
// and marks have Markdown forms that read back to the same nodes (rich.go,
// docs/markdown-adf.md): mention, status, date, emoji and inlineCard are
// links with schemes of their own ("[@Ana](mention:ID)"), blockCard and
// embedCard such a link alone in a paragraph ("card:block"), media images
// with the media: scheme, underline/textColor/backgroundColor/subsup the
// HTML tags <u>, <span style="color: #rrggbb">, <sub>, <sup>, panels and
// decision lists block quotes led by a GitHub alert marker ("[!INFO]",
// "[!DECISION]"), expand and nestedExpand <details><summary>. FromMarkdown
// reads those forms back; TestPropertyRichADFIdentity checks ADF ->
// Markdown -> ADF is the identity on them (localIds of task and decision
// lists aside). What has no form degrades to readable text: layouts and
// bodied extensions → their content, other extensions → their text or
// "[key]", custom panels → a quote starting with "**Custom:**", unknown
// nodes → their text; Unrepresentable names such content, so that a
// caller does not write it back.
//
// ToMarkdown escapes only what Markdown would misread, checks each
// paragraph by parsing it back, and falls back to a more heavily escaped
// rendering (character references around emphasis) when needed. One known
// limit: a link whose text starts with inline code containing "]:" at the
// very start of a paragraph reads as a link reference definition in
// Markdown; ToMarkdown then leaves out that one link (text and other
// formatting are kept).
//
// # Fidelity against Atlassian's transformer
//
// testdata/commonmark-adf-examples.json holds 321 CommonMark spec examples
// with the ADF of Atlassian's own editor-markdown-transformer. Tests assert
// that every example's ADF is schema-valid, is a round-trip fixed point and
// loses no text, and measure the share equal to Atlassian's ADF after
// normalisation (localIds and empty attrs dropped, marks sorted, adjacent
// equally-marked text merged, numbers compared by value). That share is
// 247 of 321 (76.9%); testdata/README.md explains each kind of difference.
package adf
