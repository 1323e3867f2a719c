// Package jql builds the few JQL fragments the Jira client sends, and is the
// one place where values are put into JQL: every value goes through String,
// Phrase or Terms, which quote and escape it so that no value can change the
// structure of a query (quotes, backslashes, newlines, JQL keywords and
// Lucene operators inside values stay literal).
package jql

import (
	"fmt"
	"strings"
	"unicode"
)

// String returns s as a double-quoted JQL string literal. Backslashes and
// quotes are escaped, and control characters (newline, tab, …) are written as
// JQL escape sequences, so the literal always stays on one line and ends
// where it should. JQL keywords (AND, OR, ORDER BY, EMPTY, …) inside s are
// plain text once quoted.
func String(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				fmt.Fprintf(&b, `\u%04x`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Phrase returns the JQL literal for a text-search (~) clause that matches s
// as an exact phrase: s is wrapped in Lucene phrase quotes (with the
// characters that are special inside a Lucene phrase escaped) and the result
// is quoted as a JQL string. Jira's text search is tokenised, so a phrase
// match is a superset of an exact match: callers compare exactly afterwards.
func Phrase(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return String(b.String())
}

// luceneSpecial are the characters with a meaning in Lucene query syntax,
// which Jira's text search (~) uses.
const luceneSpecial = `+-&|!(){}[]^"~*?:\/`

// Terms returns the JQL literal for a free-text (~) search for all the
// words of s: every Lucene operator character is escaped and the Lucene
// keywords AND, OR and NOT are lower-cased so that they are searched as
// words. Empty input yields an empty phrase literal.
func Terms(s string) string {
	words := strings.Fields(s)
	out := make([]string, 0, len(words))
	for _, w := range words {
		switch w {
		case "AND", "OR", "NOT", "TO":
			w = strings.ToLower(w)
		}
		var b strings.Builder
		for _, r := range w {
			if strings.ContainsRune(luceneSpecial, r) {
				b.WriteByte('\\')
			}
			if unicode.IsControl(r) {
				continue
			}
			b.WriteRune(r)
		}
		if b.Len() > 0 {
			out = append(out, b.String())
		}
	}
	return String(strings.Join(out, " "))
}

// CustomField returns the JQL clause name of a custom field id:
// "customfield_10050" → "cf[10050]". Any other id is returned quoted.
func CustomField(id string) string {
	if n, ok := strings.CutPrefix(id, "customfield_"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return "cf[" + n + "]"
	}
	return String(id)
}

// List returns a parenthesised, comma-separated list of quoted values for an
// IN clause: ("A", "B").
func List(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = String(v)
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// Balanced reports whether a query a person wrote keeps to its own
// parentheses: outside its string literals ("…" and '…', with backslash
// escapes) no ')' closes more than it opened and every '(' is closed, and
// no literal is left open. Put inside "<scope> AND (<query>)", a balanced
// query cannot reach outside the scope.
func Balanced(q string) bool {
	depth := 0
	var quote rune
	escaped := false
	for _, r := range q {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && quote == 0 && !escaped
}
