package jql

import (
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// readLiteral reads one double-quoted JQL string literal at the start of s,
// as Jira's JQL lexer does, and returns its value and the rest of s.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func readLiteral(t fataler, s string) (string, string) {
	t.Helper()
	if !strings.HasPrefix(s, `"`) {
		t.Fatalf("literal %q does not start with a quote", s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:]
		case c == '\n' || c == '\r':
			t.Fatalf("raw line break inside literal %q", s)
		case c == '\\':
			i++
			if i >= len(s) {
				t.Fatalf("dangling backslash in %q", s)
			}
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				n, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
				if err != nil {
					t.Fatalf("bad \\u escape in %q", s)
				}
				b.WriteRune(rune(n))
				i += 4
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	t.Fatalf("unterminated literal %q", s)
	return "", ""
}

func TestStringQuotesAndEscapes(t *testing.T) {
	cases := map[string]string{
		"plain":                               `"plain"`,
		`say "hi"`:                            `"say \"hi\""`,
		`back\slash`:                          `"back\\slash"`,
		`trailing\`:                           `"trailing\\"`,
		"two\nlines":                          `"two\nlines"`,
		"tab\there":                           `"tab\there"`,
		"it's":                                `"it's"`,
		"x ~ y":                               `"x ~ y"`,
		"a OR b AND c":                        `"a OR b AND c"`,
		`" OR project = OTHER OR summary ~ "`: `"\" OR project = OTHER OR summary ~ \""`,
		"ORDER BY key":                        `"ORDER BY key"`,
		"EMPTY":                               `"EMPTY"`,
		"bell\a":                              `"bell\u0007"`,
	}
	for in, want := range cases {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %s, want %s", in, got, want)
		}
		v, rest := readLiteral(t, String(in))
		if v != in || rest != "" {
			t.Errorf("String(%q) reads back as %q with rest %q", in, v, rest)
		}
	}
}

func TestStringRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		lit := String(s)
		v, rest := readLiteral(t, lit+" AND x")
		if v != s {
			t.Fatalf("value %q read back as %q", s, v)
		}
		if rest != " AND x" {
			t.Fatalf("literal of %q did not end where it should: rest %q", s, rest)
		}
	})
}

// unphrase reverses the Lucene phrase quoting of Phrase.
func unphrase(t fataler, p string) string {
	t.Helper()
	if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
		t.Fatalf("not a phrase: %q", p)
	}
	inner := p[1 : len(p)-1]
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\\' {
			i++
			if i == len(inner) {
				t.Fatalf("dangling backslash in phrase %q", p)
			}
		} else if inner[i] == '"' {
			t.Fatalf("unescaped quote inside phrase %q", p)
		}
		b.WriteByte(inner[i])
	}
	return b.String()
}

func TestPhrase(t *testing.T) {
	for _, in := range []string{"checkout-v2/s-3", `a"b`, `c\d`, "x ~ y", "OR", `\"`, "new\nline"} {
		lit := Phrase(in)
		v, rest := readLiteral(t, lit)
		if rest != "" {
			t.Fatalf("Phrase(%q) rest %q", in, rest)
		}
		want := strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(in)
		if got := unphrase(t, v); got != want {
			t.Errorf("Phrase(%q) = %s holds phrase %q", in, lit, got)
		}
	}
	if got := Phrase("doc/s-1"); got != `"\"doc/s-1\""` {
		t.Errorf("Phrase(doc/s-1) = %s", got)
	}
}

func TestTermsEscapesLucene(t *testing.T) {
	cases := map[string]string{
		"pay card":       `"pay card"`,
		"a AND b":        `"a and b"`,
		"NOT this":       `"not this"`,
		"x~2":            `"x\\~2"`,
		`say "hi"`:       `"say \\\"hi\\\""`,
		`path\to`:        `"path\\\\to"`,
		"wild* card?":    `"wild\\* card\\?"`,
		"(grp) [r] {b}":  `"\\(grp\\) \\[r\\] \\{b\\}"`,
		"  spaced\nout ": `"spaced out"`,
	}
	for in, want := range cases {
		if got := Terms(in); got != want {
			t.Errorf("Terms(%q) = %s, want %s", in, got, want)
		}
		readLiteral(t, Terms(in))
	}
}

func TestCustomField(t *testing.T) {
	if got := CustomField("customfield_10050"); got != "cf[10050]" {
		t.Errorf("got %s", got)
	}
	if got := CustomField(`customfield_1" OR x`); got != `"customfield_1\" OR x"` {
		t.Errorf("got %s", got)
	}
	if got := List([]string{"A-1", `B"`}); got != `("A-1", "B\"")` {
		t.Errorf("got %s", got)
	}
}

// FuzzQuoting: any value, quoted by String or Phrase and followed by more
// JQL, reads back as exactly one literal holding the value.
func FuzzQuoting(f *testing.F) {
	for _, s := range []string{"", `"`, `\`, `\"`, "a\nb", "x ~ y OR z", `" OR project = X OR "`, "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, rest := readLiteral(t, String(s)+" AND x"); v != string([]rune(s)) || rest != " AND x" {
			t.Fatalf("String(%q) read back as %q, rest %q", s, v, rest)
		}
		if _, rest := readLiteral(t, Phrase(s)+" OR y"); rest != " OR y" {
			t.Fatalf("Phrase(%q) did not end where it should: rest %q", s, rest)
		}
		if _, rest := readLiteral(t, Terms(s)+")"); rest != ")" {
			t.Fatalf("Terms(%q) did not end where it should: rest %q", s, rest)
		}
	})
}

func TestBalanced(t *testing.T) {
	for q, want := range map[string]bool{
		`summary ~ "x"`:                        true,
		`(a = 1 OR b = 2) AND c = 3`:           true,
		`summary ~ "a)" AND x = ')'`:           true,
		`summary ~ "a\") OR (b"`:               true,
		`summary ~ "x") OR (project = OPS`:     false,
		`x = 1) OR project = OPS OR (y = 2`:    false,
		`summary ~ "x`:                         false,
		`(a = 1`:                               false,
		`labels = a) order by key ASC, (x = 1`: false,
	} {
		if got := Balanced(q); got != want {
			t.Errorf("Balanced(%q) = %v; want %v", q, got, want)
		}
	}
}
