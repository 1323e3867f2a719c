package jiratest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/go-porterstemmer"
)

// This file is the JQL subset: a lexer and recursive-descent parser for
// clauses joined by AND/OR/NOT and parentheses, and ORDER BY.

type tokKind int

const (
	tEOF tokKind = iota
	tWord
	tString // quoted
	tOp     // = != ~ !~ < > <= >=
	tLParen
	tRParen
	tComma
	tAnd
	tOr
	tNot
)

type token struct {
	kind tokKind
	text string // value (unescaped for strings)
	pos  int    // 1-based character position
}

// jqlError is a JQL error reported as Jira does (400, errorMessages).
type jqlError struct{ msg string }

func (e *jqlError) Error() string { return e.msg }

func jqlErrf(pos int, format string, args ...any) *jqlError {
	return &jqlError{fmt.Sprintf("Error in the JQL Query: "+format+" (line 1, character %d)", append(args, pos)...)}
}

// reservedWords must be quoted to be used as values (a subset of Jira's list).
var reservedWords = map[string]bool{
	"and": true, "or": true, "not": true, "empty": true, "null": true, "order": true, "by": true,
	"asc": true, "desc": true, "in": true, "is": true, "was": true, "changed": true, "on": true,
	"after": true, "before": true, "during": true, "from": true, "to": true, "select": true,
	"where": true, "limit": true, "true": true, "false": true, "delete": true, "update": true,
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.'
}

func lexJQL(src string) ([]token, error) {
	var toks []token
	rs := []rune(src)
	i := 0
	for i < len(rs) {
		r := rs[i]
		pos := i + 1
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(':
			toks = append(toks, token{tLParen, "(", pos})
			i++
		case r == ')':
			toks = append(toks, token{tRParen, ")", pos})
			i++
		case r == ',':
			toks = append(toks, token{tComma, ",", pos})
			i++
		case r == '=' || r == '~':
			toks = append(toks, token{tOp, string(r), pos})
			i++
		case r == '!':
			if i+1 < len(rs) && (rs[i+1] == '=' || rs[i+1] == '~') {
				toks = append(toks, token{tOp, string(rs[i : i+2]), pos})
				i += 2
			} else {
				toks = append(toks, token{tNot, "!", pos})
				i++
			}
		case r == '<' || r == '>':
			if i+1 < len(rs) && rs[i+1] == '=' {
				toks = append(toks, token{tOp, string(rs[i : i+2]), pos})
				i += 2
			} else {
				toks = append(toks, token{tOp, string(r), pos})
				i++
			}
		case r == '&' || r == '|':
			if i+1 < len(rs) && rs[i+1] == r {
				k := tAnd
				if r == '|' {
					k = tOr
				}
				toks = append(toks, token{k, string(rs[i : i+2]), pos})
				i += 2
			} else {
				return nil, jqlErrf(pos, "The character '%c' is a reserved JQL character. You must enclose it in a string or use the escape '\\u%04x' instead.", r, r)
			}
		case r == '"' || r == '\'':
			q := r
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(rs) {
				c := rs[j]
				if c == q {
					closed = true
					j++
					break
				}
				if c == '\\' {
					if j+1 >= len(rs) {
						return nil, jqlErrf(j+1, "The escape sequence '\\' at the end of the query is not valid.")
					}
					e := rs[j+1]
					switch e {
					case '"', '\'', '\\', ' ':
						b.WriteRune(e)
						j += 2
					case 'n':
						b.WriteRune('\n')
						j += 2
					case 'r':
						b.WriteRune('\r')
						j += 2
					case 't':
						b.WriteRune('\t')
						j += 2
					case 'u':
						if j+6 > len(rs) {
							return nil, jqlErrf(j+1, "The escape sequence '\\%s' is not valid.", string(rs[j+1:]))
						}
						var n rune
						if _, err := fmt.Sscanf(string(rs[j+2:j+6]), "%04x", &n); err != nil {
							return nil, jqlErrf(j+1, "The escape sequence '\\%s' is not valid.", string(rs[j+1:j+6]))
						}
						b.WriteRune(n)
						j += 6
					default:
						return nil, jqlErrf(j+1, "The escape sequence '\\%c' in the string is not valid. Valid escapes are \\\", \\', \\\\, \\n, \\r, \\t, \\u and '\\ '.", e)
					}
					continue
				}
				b.WriteRune(c)
				j++
			}
			if !closed {
				return nil, jqlErrf(pos, "The quoted string starting here is not terminated: %s", string(rs[i:]))
			}
			toks = append(toks, token{tString, b.String(), pos})
			i = j
		case isWordRune(r):
			j := i
			for j < len(rs) && isWordRune(rs[j]) {
				j++
			}
			w := string(rs[i:j])
			// cf[12345]
			if strings.EqualFold(w, "cf") && j < len(rs) && rs[j] == '[' {
				k := j + 1
				for k < len(rs) && unicode.IsDigit(rs[k]) {
					k++
				}
				if k < len(rs) && rs[k] == ']' && k > j+1 {
					toks = append(toks, token{tWord, "cf[" + string(rs[j+1:k]) + "]", pos})
					i = k + 1
					continue
				}
			}
			switch strings.ToLower(w) {
			case "and":
				toks = append(toks, token{tAnd, w, pos})
			case "or":
				toks = append(toks, token{tOr, w, pos})
			case "not":
				toks = append(toks, token{tNot, w, pos})
			default:
				toks = append(toks, token{tWord, w, pos})
			}
			i = j
		default:
			return nil, jqlErrf(pos, "The character '%c' is a reserved JQL character. You must enclose it in a string or use the escape '\\u%04x' instead.", r, r)
		}
	}
	toks = append(toks, token{tEOF, "", len(rs) + 1})
	return toks, nil
}

// AST

type expr interface{ isExpr() }

type andExpr struct{ l, r expr }
type orExpr struct{ l, r expr }
type notExpr struct{ e expr }

type jqlValue struct {
	text   string
	quoted bool
	empty  bool // EMPTY / NULL
	pos    int
}

type clause struct {
	field    string // as written
	fieldPos int
	op       string // "=", "!=", "~", "!~", "<", ">", "<=", ">=", "in", "not in", "is", "is not"
	values   []jqlValue
	f        *jqlField // resolved
	f2       *resolved // resolved values
}

func (andExpr) isExpr() {}
func (orExpr) isExpr()  {}
func (notExpr) isExpr() {}
func (*clause) isExpr() {}

type sortKey struct {
	field string
	pos   int
	desc  bool
}

type jqlQuery struct {
	where expr // nil = no restriction
	order []sortKey
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func isKeyword(t token, kw string) bool { return t.kind == tWord && strings.EqualFold(t.text, kw) }

func parseJQL(src string) (*jqlQuery, error) {
	toks, err := lexJQL(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	q := &jqlQuery{}
	if t := p.peek(); t.kind != tEOF && !isKeyword(t, "order") {
		q.where, err = p.parseOr()
		if err != nil {
			return nil, err
		}
	}
	if t := p.peek(); isKeyword(t, "order") {
		p.next()
		if by := p.next(); !isKeyword(by, "by") {
			return nil, jqlErrf(by.pos, "Expecting 'by' but got '%s'.", by.text)
		}
		for {
			f := p.next()
			if f.kind != tWord && f.kind != tString {
				return nil, jqlErrf(f.pos, "Expecting a field name but got '%s'.", describe(f))
			}
			sk := sortKey{field: f.text, pos: f.pos}
			if t := p.peek(); isKeyword(t, "asc") || isKeyword(t, "desc") {
				sk.desc = isKeyword(p.next(), "desc")
			}
			q.order = append(q.order, sk)
			if p.peek().kind != tComma {
				break
			}
			p.next()
		}
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, jqlErrf(t.pos, "Expecting either 'OR' or 'AND' but got '%s'.", describe(t))
	}
	return q, nil
}

func describe(t token) string {
	if t.kind == tEOF {
		return "end of query"
	}
	return t.text
}

func (p *parser) parseOr() (expr, error) {
	return p.parseChain(tOr, p.parseAnd, func(l, r expr) expr { return orExpr{l, r} })
}

func (p *parser) parseAnd() (expr, error) {
	return p.parseChain(tAnd, p.parseNot, func(l, r expr) expr { return andExpr{l, r} })
}

// parseChain parses operands joined by op, left-associative: a op b op c
// is join(join(a, b), c).
func (p *parser) parseChain(op tokKind, operand func() (expr, error), join func(l, r expr) expr) (expr, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == op {
		p.next()
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = join(l, r)
	}
	return l, nil
}

func (p *parser) parseNot() (expr, error) {
	t := p.peek()
	switch t.kind {
	case tNot:
		p.next()
		e, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return notExpr{e}, nil
	case tLParen:
		p.next()
		e, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, jqlErrf(c.pos, "Expecting ')' but got '%s'.", describe(c))
		}
		return e, nil
	}
	return p.parseClause()
}

func (p *parser) parseClause() (expr, error) {
	f := p.next()
	if f.kind != tWord && f.kind != tString {
		return nil, jqlErrf(f.pos, "Expecting a field name but got '%s'.", describe(f))
	}
	if f.kind == tWord && reservedWords[strings.ToLower(f.text)] {
		return nil, jqlErrf(f.pos, "'%s' is a reserved JQL word. You must surround it in quotation marks to use it in a query.", f.text)
	}
	c := &clause{field: f.text, fieldPos: f.pos}
	op := p.next()
	switch {
	case op.kind == tOp:
		c.op = op.text
	case isKeyword(op, "in"):
		c.op = "in"
	case op.kind == tNot && isKeyword(p.peek(), "in"):
		p.next()
		c.op = "not in"
	case isKeyword(op, "is"):
		c.op = "is"
		if p.peek().kind == tNot {
			p.next()
			c.op = "is not"
		}
	default:
		return nil, jqlErrf(op.pos, "Expecting operator but got '%s'. Valid operators are '=', '!=', '~', '!~', '<', '>', '<=', '>=', 'in', 'not in', 'is' and 'is not'.", describe(op))
	}
	switch c.op {
	case "in", "not in":
		lp := p.next()
		if lp.kind != tLParen {
			if lp.kind == tWord && p.peek().kind == tLParen {
				return nil, jqlErrf(lp.pos, "Unable to find JQL function '%s()'. mockjira models no JQL functions.", lp.text)
			}
			return nil, jqlErrf(lp.pos, "Expecting '(' but got '%s'.", describe(lp))
		}
		for {
			v, err := p.parseValue(false)
			if err != nil {
				return nil, err
			}
			c.values = append(c.values, v)
			t := p.next()
			if t.kind == tRParen {
				break
			}
			if t.kind != tComma {
				return nil, jqlErrf(t.pos, "Expecting ',' or ')' but got '%s'.", describe(t))
			}
		}
	case "is", "is not":
		v := p.next()
		if !isKeyword(v, "empty") && !isKeyword(v, "null") {
			return nil, jqlErrf(v.pos, "Expecting 'EMPTY' or 'NULL' but got '%s'.", describe(v))
		}
		c.values = []jqlValue{{empty: true, pos: v.pos}}
	default:
		v, err := p.parseValue(true)
		if err != nil {
			return nil, err
		}
		c.values = []jqlValue{v}
	}
	return c, nil
}

func (p *parser) parseValue(allowEmpty bool) (jqlValue, error) {
	t := p.next()
	switch t.kind {
	case tString:
		return jqlValue{text: t.text, quoted: true, pos: t.pos}, nil
	case tWord:
		if p.peek().kind == tLParen {
			return jqlValue{}, jqlErrf(t.pos, "Unable to find JQL function '%s()'. mockjira models no JQL functions.", t.text)
		}
		lw := strings.ToLower(t.text)
		if allowEmpty && (lw == "empty" || lw == "null") {
			return jqlValue{empty: true, pos: t.pos}, nil
		}
		if reservedWords[lw] {
			return jqlValue{}, jqlErrf(t.pos, "'%s' is a reserved JQL word. You must surround it in quotation marks to use it in a query.", t.text)
		}
		return jqlValue{text: t.text, pos: t.pos}, nil
	}
	if t.kind == tAnd || t.kind == tOr || t.kind == tNot {
		return jqlValue{}, jqlErrf(t.pos, "Expecting either a value, list or function but got '%s'. You must surround '%s' in quotation marks to use it as a value.", t.text, t.text)
	}
	return jqlValue{}, jqlErrf(t.pos, "Expecting either a value, list or function but got '%s'.", describe(t))
}

// Text search (~) — Jira's English analyser, modelled: lower-cased
// letter/digit word tokens, Lucene's English stop words dropped, every
// other token reduced to its Porter stem (Lucene's EnglishAnalyzer, which
// Jira uses for text fields, ends in PorterStemFilter). A query is
// analysed the same way, except the word of a trailing-* prefix query,
// which is matched against the stems unstemmed (as Lucene does not stem
// wildcard terms).

// stopWords is Lucene's English stop word set (EnglishAnalyzer's default).
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "but": true,
	"by": true, "for": true, "if": true, "in": true, "into": true, "is": true, "it": true, "no": true,
	"not": true, "of": true, "on": true, "or": true, "such": true, "that": true, "the": true,
	"their": true, "then": true, "there": true, "these": true, "they": true, "this": true, "to": true,
	"was": true, "will": true, "with": true,
}

// analyze splits text into index tokens: the words of tokenize, each
// reduced to its stem.
func analyze(text string) []string { return analyzeWords(text, false) }

// analyzeWords is analyze; with keepLast the last word is not stemmed
// (the word of a prefix query).
func analyzeWords(text string, keepLast bool) []string {
	words := tokenize(text)
	for i, w := range words {
		if !keepLast || i < len(words)-1 {
			words[i] = porterstemmer.StemString(w)
		}
	}
	return words
}

// tokenize is the analyser before stemming: lower-cased letter/digit
// words, stop words dropped. A token with letters and digits ("v2",
// "dw3fa90") is one word, and the stemmer leaves a word that ends in a
// digit as it is (its rules remove letter suffixes only).
func tokenize(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// textTerm is one part of a text query.
type textTerm struct {
	tokens  []string // phrase (consecutive) or a single analysed word group
	phrase  bool
	prefix  bool // last token is a prefix (trailing *)
	negate  bool
	require bool
}

// parseTextQuery parses the value of a ~ clause like Jira's text search
// (Lucene syntax subset: "phrases", -exclude, +require, trailing * wildcard).
func parseTextQuery(field, v string) ([]textTerm, error) {
	if strings.TrimSpace(v) == "" {
		return nil, &jqlError{fmt.Sprintf("The field '%s' does not support searching for an empty string.", field)}
	}
	var terms []textTerm
	rs := []rune(v)
	i := 0
	for i < len(rs) {
		if unicode.IsSpace(rs[i]) {
			i++
			continue
		}
		var t textTerm
		if rs[i] == '-' || rs[i] == '!' {
			t.negate = true
			i++
		} else if rs[i] == '+' {
			t.require = true
			i++
		}
		if i < len(rs) && rs[i] == '"' {
			j := i + 1
			var b strings.Builder
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				b.WriteRune(rs[j])
				j++
			}
			t.phrase = true
			t.tokens = analyze(b.String())
			i = j + 1
		} else {
			j := i
			var b strings.Builder
			for j < len(rs) && !unicode.IsSpace(rs[j]) {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				b.WriteRune(rs[j])
				j++
			}
			w := b.String()
			if strings.HasPrefix(w, "*") || strings.HasPrefix(w, "?") {
				return nil, &jqlError{fmt.Sprintf("The text query '%s' for field '%s' is not allowed to start with a wildcard.", v, field)}
			}
			if strings.HasSuffix(w, "*") {
				t.prefix = true
				w = strings.TrimRight(w, "*")
			}
			t.tokens = analyzeWords(w, t.prefix)
			i = j
		}
		if len(t.tokens) > 0 {
			terms = append(terms, t)
		}
	}
	return terms, nil
}

func containsSeq(doc, seq []string, prefixLast bool) bool {
	if len(seq) == 0 {
		return false
	}
	for i := 0; i+len(seq) <= len(doc); i++ {
		ok := true
		for j, s := range seq {
			d := doc[i+j]
			if prefixLast && j == len(seq)-1 {
				if !strings.HasPrefix(d, s) {
					ok = false
					break
				}
			} else if d != s {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// textMatch reports whether a document's tokens match the query terms:
// every positive term present (a "phrase" as consecutive tokens, an
// unquoted word that splits into several tokens as all of them, anywhere),
// no negated term present.
func textMatch(doc []string, terms []textTerm) bool {
	positive := 0
	for _, t := range terms {
		has := false
		if t.phrase {
			has = containsSeq(doc, t.tokens, t.prefix)
		} else {
			has = true
			for i, tok := range t.tokens {
				if !containsSeq(doc, []string{tok}, t.prefix && i == len(t.tokens)-1) {
					has = false
				}
			}
		}
		if t.negate {
			if has {
				return false
			}
			continue
		}
		positive++
		if !has {
			return false
		}
	}
	return positive > 0
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }
