package jiratest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLexStrings(t *testing.T) {
	cases := []struct {
		in   string
		want string // the unescaped string token
	}{
		{`"plain"`, `plain`},
		{`'single'`, `single`},
		{`"\"checkout-v2/s-1\""`, `"checkout-v2/s-1"`},
		{`'"checkout-v2/s-1"'`, `"checkout-v2/s-1"`},
		{`"back\\slash"`, `back\slash`},
		{`"it\'s"`, `it's`},
		{`"tab\there"`, "tab\there"},
		{`"\u0041BC"`, `ABC`},
		{`"AND OR NOT ORDER BY"`, `AND OR NOT ORDER BY`},
		{`"a\ b"`, `a b`},
		{`"(parens) and, commas = ~"`, `(parens) and, commas = ~`},
	}
	for _, c := range cases {
		toks, err := lexJQL("summary ~ " + c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if toks[2].kind != tString || toks[2].text != c.want {
			t.Errorf("%s: got %q (kind %d), want %q", c.in, toks[2].text, toks[2].kind, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		`summary ~ "unterminated`:        "not terminated",
		`summary ~ "bad \q escape"`:      "escape sequence",
		`summary ~ and`:                  "You must surround 'and' in quotation marks",
		`summary ~ empty AND`:            "Expecting a field name",
		`project = DEMO AND`:             "Expecting a field name",
		`project = checkout-v2/s-1`:      "reserved JQL character",
		`project DEMO`:                   "Expecting operator",
		`(project = DEMO`:                "Expecting ')'",
		`key in (DEMO-1, DEMO-2`:         "Expecting ',' or ')'",
		`issue in linkedIssues(DEMO-1)`:  "Unable to find JQL function",
		`project = DEMO ORDER key`:       "Expecting 'by'",
		`project = DEMO project = DEMO`:  "Expecting either 'OR' or 'AND'",
		`order = x`:                      "Expecting 'by'",
		`project = DEMO & status = Done`: "reserved JQL character",
		`status is Done`:                 "Expecting 'EMPTY' or 'NULL'",
	}
	for in, want := range cases {
		_, err := parseJQL(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", in, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "(line 1, character ") {
			t.Errorf("%s: error %q has no position", in, err)
		}
	}
}

func TestParseStructure(t *testing.T) {
	q, err := parseJQL(`project = DEMO AND (issuetype = Epic OR NOT status = "Done") && !key in (DEMO-1, "DEMO-2") ORDER BY key ASC, created DESC`)
	if err != nil {
		t.Fatal(err)
	}
	and1, ok := q.where.(andExpr)
	if !ok {
		t.Fatalf("top is %T", q.where)
	}
	if _, ok := and1.r.(notExpr); !ok {
		t.Errorf("right of && is %T, want NOT", and1.r)
	}
	inner := and1.l.(andExpr).r.(orExpr)
	if c := inner.l.(*clause); c.field != "issuetype" || c.values[0].text != "Epic" {
		t.Errorf("or left: %+v", c)
	}
	want := []sortKey{{"key", 0, false}, {"created", 0, true}}
	for i := range q.order {
		q.order[i].pos = 0
	}
	if !reflect.DeepEqual(q.order, want) {
		t.Errorf("order: %+v", q.order)
	}
	// Precedence: AND binds tighter than OR.
	q, err = parseJQL(`status = Done OR status = "To Do" AND issuetype = Epic`)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := q.where.(orExpr); !ok {
		t.Errorf("a OR b AND c parsed as %T, want OR at the top", q.where)
	}
	// cf[N] and quoted field names.
	q, err = parseJQL(`cf[10050] ~ "x" OR "DevWorkWire Reference" ~ 'y' OR parent in (DEMO-1) OR statusCategory != new`)
	if err != nil {
		t.Fatal(err)
	}
	if c := q.where.(orExpr).l.(orExpr).l.(orExpr).l.(*clause); c.field != "cf[10050]" {
		t.Errorf("cf field parsed as %q", c.field)
	}
}

func TestTextQuery(t *testing.T) {
	text := "Reference: checkout-v2/s-1 — Pay WITHOUT an account"
	if words, want := tokenize(text), []string{"reference", "checkout", "v2", "s", "1", "pay", "without", "account"}; !reflect.DeepEqual(words, want) {
		t.Fatalf("tokenize: %q", words)
	}
	// Then every word is reduced to its Porter stem, as Jira's English
	// analyser does.
	doc := analyze(text)
	if want := []string{"refer", "checkout", "v2", "s", "1", "pai", "without", "account"}; !reflect.DeepEqual(doc, want) {
		t.Fatalf("analyze: %q", doc)
	}
	cases := []struct {
		q    string
		want bool
	}{
		{`"checkout-v2/s-1"`, true},
		{`"checkout-v2/s-10"`, false},
		{`"v2 checkout"`, false}, // phrase order matters
		{`v2 checkout`, true},    // terms: all present, any order
		{`checkout-v2/s-1`, true},
		{`CHECKOUT`, true},
		{`check*`, true},
		{`acc*`, true},
		{`pay -account`, false},
		{`pay -invoice`, true},
		{`"pay without"`, true},
		{`"pay the without"`, true}, // stop words drop out of phrases
		{`invoice`, false},
		{`"paying without"`, true}, // stems: paying, pays and pay are one word
		{`accounts`, true},
		{`references`, true},
		{`refer*`, true}, // a prefix is matched unstemmed against the stems
		{`pai*`, true},
	}
	for _, c := range cases {
		terms, err := parseTextQuery("summary", c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got := textMatch(doc, terms); got != c.want {
			t.Errorf("%s: match %v, want %v", c.q, got, c.want)
		}
	}
	if _, err := parseTextQuery("summary", "  "); err == nil {
		t.Error("empty text query accepted")
	}
	if _, err := parseTextQuery("summary", "*foo"); err == nil {
		t.Error("leading wildcard accepted")
	}
	if terms, _ := parseTextQuery("summary", "the an"); textMatch(doc, terms) {
		t.Error("stop words only should match nothing")
	}
}

func TestTokenBucket(t *testing.T) {
	now := timeZero()
	b := newTokenBucket(2, 2, now)
	for i := 0; i < 2; i++ {
		if ok, _, _ := b.take(now); !ok {
			t.Fatalf("token %d refused", i)
		}
	}
	ok, wait, _ := b.take(now)
	if ok || wait <= 0 {
		t.Fatalf("third token: ok=%v wait=%v", ok, wait)
	}
	if ok, _, _ := b.take(now.Add(wait)); !ok {
		t.Fatalf("token after waiting %v refused", wait)
	}
	off := newTokenBucket(0, 0, now)
	for i := 0; i < 1000; i++ {
		if ok, _, _ := off.take(now); !ok {
			t.Fatal("rate 0 must not limit")
		}
	}
}

func timeZero() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

func BenchmarkParseJQL(b *testing.B) {
	q := `project = DEMO AND (cf[10050] ~ "\"checkout-v2/s-1\"" OR key in (DEMO-1, DEMO-2, "DEMO-3")) AND statusCategory != Done ORDER BY key`
	for i := 0; i < b.N; i++ {
		if _, err := parseJQL(q); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzJQL: no input may panic the lexer, parser, compiler or evaluator.
func FuzzJQL(f *testing.F) {
	for _, seed := range []string{
		`project = DEMO`, `cf[10050] ~ "\"a/b\""`, `key in (DEMO-1, "DEMO-2")`, `summary ~ 'x\'y'`,
		`NOT (a = b) OR c != d ORDER BY key DESC`, `"DevWorkWire Reference" ~ "\u0041"`, `parent is EMPTY`,
		`updated >= -1d`, `text ~ "-x +y z*"`, `summary ~ "\\"`, `((((`, `a in (`, `cf[`, `!~`,
	} {
		f.Add(seed)
	}
	s := New(Options{})
	if _, err := s.Seed(SeedIssue{IssueType: "Epic", Summary: "E", Reference: "doc/e-1"}); err != nil {
		f.Fatal(err)
	}
	if _, err := s.Seed(SeedIssue{IssueType: "Story", Summary: "S", Reference: "doc/s-1", Parent: "DEMO-1"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		tm := time.AfterFunc(2*time.Second, func() { panic(fmt.Sprintf("slow input %q", q)) })
		defer tm.Stop()
		s.mu.Lock()
		defer s.mu.Unlock()
		_, _, _ = s.run(q, nil)
		_, _ = parseTextQuery("summary", q)
	})
}
