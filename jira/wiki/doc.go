// Package wiki converts between Markdown (CommonMark 0.31 with GitHub's
// extensions, read as jira/adf reads it) and Jira wiki markup, the text
// format Jira Data Center stores descriptions, text fields and comments
// in. Its API mirrors jira/adf so an adapter can pick one per deployment:
//
//	w, err := wiki.FromMarkdown(md) // Markdown -> wiki markup
//	md := wiki.ToMarkdown(w)        // wiki markup -> Markdown
//	md, lost := wiki.Convert(w)     // ... and the formatting Markdown does not carry
//	d, lost := wiki.Parse(w)        // wiki markup -> an ADF document (adf.Doc)
//
// Both directions go through the ADF document model of jira/adf:
// Markdown is read by adf.FromMarkdown and written by adf.ToMarkdown, so
// Markdown means exactly the same thing on Cloud and on Data Center; this
// package renders that model as wiki markup (FromADF) and reads wiki
// markup into it (Parse).
//
// The notation is Atlassian's "Text formatting notation" (the wiki
// renderer Jira Data Center and Confluence share): h1.–h6. headings,
// *strong*, _emphasis_, -deleted-, +inserted+, ^superscript^,
// ~subscript~, ??citation??, {{monospaced}}, the braced forms {*}...{*}
// for effects inside a word, {color:red}...{color}, \\ line breaks, ----
// rules, [text|url|tip], [url], [~user], [^attachment], [#anchor],
// [ISSUE-1] links, !image! and !image|alt=...! images, * / - / # lists
// nested by repetition (*#), || header and | table cells, {code:lang},
// {noformat}, {quote}, bq., {panel:title=...}, {anchor:...}, backslash
// escapes and HTML character references.
//
// # Guarantees
//
//   - Nothing visible is lost in either direction: the Markdown's text (as
//     adf.FromMarkdown reads it) is all in the wiki markup, in order, and
//     wiki markup's text is all in its Markdown. Formatting Markdown has no
//     syntax for is reported by Convert and Parse (see below).
//   - Round trip: for any Markdown m, FromMarkdown(ToMarkdown(FromMarkdown(m)))
//     equals FromMarkdown(m), so an item written by DevWorkWire reads back
//     unchanged. For any wiki markup w, one round through Markdown
//     (FromMarkdown(ToMarkdown(w))) is a fixed point of the next.
//     Property tests (pgregory.net/rapid) check both on generated documents;
//     the corpus test checks the first on the 321 CommonMark examples jira/adf
//     is tested with (../adf/testdata), 278 of which (86.6%) read back as
//     the very Markdown they read back as through ADF on Cloud.
//
// # Markdown → wiki markup
//
// Text is escaped so the wiki renderer shows it as written: a backslash
// before * _ - + ^ ~ { } [ ] | (a mark character between two letters or
// digits is left alone, as the renderer does not read it as a mark there:
// snake_case, a-b), before ! when text follows it, before ? next to ?,
// before # starting a line; "h1." or "bq." starting a line is written
// h1&#46; and a backslash that would escape what follows &#92;. Effects
// use the short form (*x*) where the characters around them let the
// renderer see it and the braced form ({*}x{*}) elsewhere; blanks at the
// edges of an effect or a link are moved outside it. A code block becomes
// {code:lang} (a language the macro can name) or {noformat}; one holding
// its closing tag uses the other macro, and one holding both becomes
// monospaced lines. Task lists become "* [ ] " / "* [x] " items, which
// Parse reads back as task lists.
//
// Wiki markup cannot say everything Markdown can; what it cannot hold
// degrades as on Cloud, text kept:
//
//   - A list item holds one line of text and nested lists: its other blocks
//     join that line with line breaks (code as monospaced text), and blocks
//     after a nested list start a new item at the same level.
//   - A numbered list always starts at 1 (Markdown's start number is lost).
//   - Link titles become the link's tip ([text|url|tip]).
//   - A link to nothing (Markdown "[x](<>)") or on blanks is its text.
//   - Blanks starting a paragraph, heading or item are dropped.
//
// # Wiki markup → Markdown
//
// Headings, effects Markdown has (strong, emphasis, deleted, monospaced),
// links, lists, tables, code, noformat, quotes and rules become their
// Markdown. Constructs Markdown has no syntax for get a readable form that
// survives the next conversion, and Convert names them:
//
//   - [~name] → [@name](~name), a link Markdown keeps and FromMarkdown
//     writes back as [~name]; [Name|~name] → [Name](~name).
//   - [^file] → [file](%5Efile); [ISSUE-1] and [#anchor] → links to them.
//   - !image! → a link to the image ("image"; attachments as ^file).
//   - {panel:title=T}...{panel} → a block quote starting with **T** ("panel").
//   - {color:c}...{color} ("text colour"), +inserted+ ("underline
//     (inserted text)"), ^sup^ and ~sub~ ("superscript and subscript") →
//     their text without the formatting; ??citation?? → emphasis
//     ("citation"); {anchor:x} → nothing, it shows nothing ("anchor");
//     {code:title=...} → the code without its title ("code block title and
//     style").
//   - Unknown macros ({status}, {jira}, ...), emoticons such as :) or (y),
//     and an unclosed effect stay as their text.
//   - A line after a list item that starts no block continues the item.
//
// # Assumptions not checked against a live Data Center site
//
// The renderer's reading of edge cases was taken from Atlassian's notation
// help and well-used converters, not observed: that a mark character
// between letters is literal, that a line following a list item continues
// it, that character references (&#92;, &#46;) are passed to the page,
// that escapes work inside {{monospaced}}, and that {quote} and {panel}
// end at their first unescaped closing tag outside code.
package wiki
