package jira

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/internal/jql"
)

// A reference is found by a search token stored with it, not by its words.
//
// Jira's text search analyses both the field and the query: stop words
// ("it", "a", "is", "to") are dropped and words are stemmed, so a phrase
// search for a reference made only of stop words finds nothing, and one
// made of stemmable words finds others too. So the reference field holds
//
//	<reference> <reference token> <document token>
//
// e.g. "checkout-v2/s-1 dw6c1f0e9b8a7d6c5b4a3f0 dw0a9b8c7d6e5f4a3b2c1d0":
// each token is "dw", 20 lower-case hex digits of a SHA-256 and a final
// "0", letters and digits only and ending in a digit, so no analyser splits,
// drops or stems it. Lookup searches for the reference token (Query for
// the document token) and compares the reference read back exactly.
//
// Values written before the tokens (the bare reference) are still read as
// their reference and still found, by the phrase search sent beside the
// token; the next write of such an issue stores the tokens.

// refToken is the search token of a reference.
func refToken(r core.Reference) string { return searchToken("reference\x00" + string(r)) }

// docToken is the search token of a document id.
func docToken(doc string) string { return searchToken("document\x00" + doc) }

func searchToken(s string) string {
	sum := sha256.Sum256([]byte("devworkwire search token\x00" + s))
	return "dw" + hex.EncodeToString(sum[:10]) + "0"
}

// refValue is what the reference field holds for r.
func refValue(r core.Reference) string {
	doc, _ := r.Split()
	return string(r) + " " + refToken(r) + " " + docToken(doc)
}

// parseRefValue reads the reference from the field's value: the value
// without its tokens, or the whole value when it does not end in the
// tokens of what precedes them (written before tokens, or edited by a
// person).
func parseRefValue(v string) core.Reference {
	parts := strings.Split(v, " ")
	if n := len(parts); n >= 3 {
		r := core.Reference(strings.Join(parts[:n-2], " "))
		doc, _ := r.Split()
		if parts[n-2] == refToken(r) && parts[n-1] == docToken(doc) {
			return r
		}
	}
	return core.Reference(v)
}

// refClauseFor is the JQL that finds the issue holding r: its token, or
// (for values written before tokens) the reference as a phrase.
func (m *meta) refClauseFor(r core.Reference) string {
	terms := []string{jql.String(refToken(r))}
	if hasWord(string(r)) {
		terms = append(terms, jql.Phrase(string(r)))
	}
	return m.refMatch(terms)
}

// refMatch is the JQL that finds the issues whose reference field (each
// of them, when a team-managed project has one per issue type) matches
// any of the terms.
func (m *meta) refMatch(terms []string) string {
	var parts []string
	for _, f := range m.refClauses {
		for _, t := range terms {
			parts = append(parts, f+" ~ "+t)
		}
	}
	return strings.Join(parts, " OR ")
}

// docClauseFor is the JQL that finds the issues of a document, likewise.
func (m *meta) docClauseFor(doc string) string {
	terms := []string{jql.String(docToken(doc))}
	if hasWord(doc) {
		terms = append(terms, jql.Phrase(doc))
	}
	return "(" + m.refMatch(terms) + ")"
}
