package adf

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ADF → Markdown, escaping: which characters of rendered inline text
// must be backslash-escaped or written as character references so that a
// CommonMark parser reads back exactly the text (emphasis flanking,
// autolinks, HTML, references, headings, lists).

func entity(r rune) string { return "&#" + strconv.Itoa(int(r)) + ";" }

func isWS(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || unicode.IsSpace(r)
}

// escapeText renders every text token, escaping what Markdown would
// otherwise read as syntax.
func escapeText(toks []tok, mode inlineMode, style renderStyle) {
	safe := style.safe
	lineStart := true
	lineDigits := true // only digits since the start of the line
	var line []rune    // text of the current line so far (for look-behind)
	// onlyTags: the first line holds only HTML tags so far (a first line
	// of only tags would start an HTML block).
	onlyTags := true
	for i := range toks {
		t := &toks[i]
		if t.kind != tText {
			if t.kind == tBreak {
				lineStart, lineDigits, line = true, true, line[:0]
				onlyTags = false
			} else {
				lineStart, lineDigits = false, false
				line = append(line, 0)
				onlyTags = onlyTags && strings.HasPrefix(t.s, "<") && !strings.HasPrefix(t.s, "<http") && !strings.Contains(t.s, "@")
			}
			continue
		}
		r := t.r
		s := string(r)
		switch {
		case r == '\n':
			prev := prevRune(toks, i)
			if mode == modePara || mode == modeSetext {
				if i == len(toks)-1 || prev == 0 || isWS(prev) || nextIsBreakOrNL(toks, i) || onlyTags {
					s = entity(r)
				}
			} else {
				s = " "
			}
			if s == "\n" {
				t.s = s
				lineStart, lineDigits, line = true, true, line[:0]
				onlyTags = false
				continue
			}
		case i == 1 && toks[0].s == "[" && (isWS(r) || r == 'x' || r == 'X') &&
			i+1 < len(toks) && strings.HasPrefix(toks[i+1].s, "]("):
			// "[ ](url)" or "[x](url)" first in a list item is a check box.
			s = entity(r)
		case r == ' ' || r == '\t':
			if lineStart || trailingWS(toks, i) {
				s = entity(r)
			}
		case r == '\v' || r == '\f' || r == '\r' || r == 0:
			s = entity(r)
		case !safe && r == '_' && i > 0 && i+1 < len(toks) && toks[i-1].kind == tText && toks[i+1].kind == tText &&
			isAlnum(toks[i-1].r) && isAlnum(toks[i+1].r):
			// snake_case: an intraword '_' can neither open nor close.
		case r == '<':
			// Only "<" + letter, '/', '!' or '?' can start a tag or an autolink.
			if i+1 >= len(toks) || toks[i+1].kind != tText || isTagStart(toks[i+1].r) {
				s = "\\" + s
			}
		case r == '`':
			// A backslash does not escape inside a code span: "\\`" after a
			// code span on the same line could close it. A reference cannot.
			s = entity(r)
		case (r == '[' || r == ']') && !style.brackets && !(i == 0 && leadingBoxOrLabel(toks)):
			// Left as is; the round-trip check catches "[a](b)" and the like.
			// A leading "[ ]" / "[x]" in a list item is a check box and a
			// leading "[a]:" a link definition: those stay escaped.
		case strings.ContainsRune("\\*_[]~|", r):
			s = "\\" + s
		case r == '>' || r == '-' || r == '+' || r == '=':
			if lineStart {
				s = "\\" + s
			}
		case r == '#':
			if lineStart || (mode == modeATX && closingHashes(toks[i:])) {
				s = "\\" + s
			}
		case r == '.' || r == ')':
			if lineDigits && len(line) > 0 {
				s = "\\" + s
			} else if r == '.' && !t.inLink && endsWith(line, "www") {
				s = "\\" + s
			}
		case r == ':':
			// A line of ':' and '-' under a one-cell line would be a
			// table's delimiter row (":---").
			if lineStart {
				s = "\\" + s
			} else if !t.inLink && nextText(toks, i, 2) == "//" && (endsWith(line, "http") || endsWith(line, "https") || endsWith(line, "ftp")) {
				s = "\\" + s
			}
		case r == '@':
			if !t.inLink && len(line) > 0 && isEmailLocal(line[len(line)-1]) {
				s = "\\" + s
			}
		case r == '&':
			if looksLikeReference(toks[i+1:]) {
				s = "\\" + s
			}
		case r == '!':
			// "![" would start an image.
			if i+1 < len(toks) && toks[i+1].kind == tRaw && strings.HasPrefix(toks[i+1].s, "[") {
				s = "\\" + s
			}
		}
		t.s = s
		if !isWS(r) {
			onlyTags = false
		}
		if !(r >= '0' && r <= '9') {
			lineDigits = false
		}
		lineStart = false
		line = append(line, r)

	}
}

// closingHashes reports whether the text from here to the end is only '#'
// and blanks: an ATX heading would read it as its closing sequence.
func closingHashes(rest []tok) bool {
	for _, t := range rest {
		if t.kind != tText || (t.r != '#' && t.r != ' ' && t.r != '\t') {
			return false
		}
	}
	return true
}

// fixEmailAutolinks stops GFM's e-mail autolinking from reading across
// markup: an address's local part may contain '*', '_', '~' and '`', so
// "~~a~~`b@c.de`" would turn into a link. For an '@' inside a code span or
// link syntax, the nearest text character before it in the same run of
// local-part characters is written as a character reference, whose ';'
// ends the run. (An '@' in text is escaped with a backslash instead.)
func fixEmailAutolinks(toks []tok) {
	for i := range toks {
		if toks[i].kind != tRaw || !strings.Contains(toks[i].s, "@") {
			continue
		}
		// Is the '@' preceded, inside this token, only by local characters?
		pre := toks[i].s[:strings.Index(toks[i].s, "@")]
		if strings.IndexFunc(pre, func(r rune) bool { return !isEmailLocal(r) }) >= 0 {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			t := &toks[j]
			if t.kind == tText && !t.ent && isAlnum(t.r) {
				t.ent = true
				t.s = entity(t.r)
				break
			}
			if strings.IndexFunc(t.s, func(r rune) bool { return !isEmailLocal(r) }) >= 0 {
				break
			}
		}
	}
}

var boxOrLabel = regexp.MustCompile(`^\[([\s xX]\]|[^\]]*\]:)`)

func leadingBoxOrLabel(toks []tok) bool {
	var sb strings.Builder
	for _, t := range toks {
		if t.kind != tText || sb.Len() > 1000 {
			break
		}
		sb.WriteRune(t.r)
	}
	return boxOrLabel.MatchString(sb.String())
}

// nextText returns up to n runes of text following token i.
func nextText(toks []tok, i, n int) string {
	var rs []rune
	for j := i + 1; j < len(toks) && len(rs) < n && toks[j].kind == tText; j++ {
		rs = append(rs, toks[j].r)
	}
	return string(rs)
}

func isTagStart(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || r == '/' || r == '!' || r == '?')
}

func isEmailLocal(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".!#$%&'*+/=?^_`{|}~-", r))
}

func endsWith(line []rune, s string) bool {
	if len(line) < len(s) {
		return false
	}
	return string(line[len(line)-len(s):]) == s
}

func prevRune(toks []tok, i int) rune {
	if i == 0 {
		return 0
	}
	p := toks[i-1]
	if p.kind == tText {
		return p.r
	}
	if p.kind == tBreak {
		return '\n'
	}
	r, _ := utf8.DecodeLastRuneInString(p.s)
	return r
}

func nextIsBreakOrNL(toks []tok, i int) bool {
	if i+1 >= len(toks) {
		return true
	}
	n := toks[i+1]
	return n.kind == tBreak || (n.kind == tText && isWS(n.r))
}

// trailingWS reports whether the whitespace at i runs to the end of the
// line (where Markdown would strip it or read a hard break).
func trailingWS(toks []tok, i int) bool {
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		if t.kind == tBreak {
			return true
		}
		if t.kind != tText {
			return false
		}
		if t.r == '\n' {
			return true
		}
		if t.r != ' ' && t.r != '\t' {
			return false
		}
	}
	return true
}

// looksLikeReference reports whether the text after '&' would be read as
// an entity or numeric character reference.
func looksLikeReference(rest []tok) bool {
	n := 0
	for _, t := range rest {
		if t.kind != tText {
			return false
		}
		if t.r == ';' {
			return n > 0
		}
		if !(t.r == '#' || t.r < utf8.RuneSelf && (unicode.IsLetter(t.r) || unicode.IsDigit(t.r))) {
			return false
		}
		n++
		if n > 40 {
			return false
		}
	}
	return false
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

func lastRune(s string) rune { r, _ := utf8.DecodeLastRuneInString(s); return r }

func isASCIIPunct(r rune) bool {
	return r < utf8.RuneSelf && unicode.IsPunct(r) || strings.ContainsRune("$+<=>^`|~", r)
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// fixFlanking makes every emphasis delimiter open or close as intended
// (CommonMark's left-/right-flanking rules) by writing neighbouring
// characters as character references where needed: a reference starts
// with '&' and ends with ';', both punctuation, and does not count as
// whitespace.
func fixFlanking(toks []tok, safe bool) {
	for changed, iter := true, 0; changed && iter < 4; iter++ {
		changed = false
		setEnt := func(j int) {
			if j >= 0 && j < len(toks) && toks[j].kind == tText && !toks[j].ent {
				toks[j].ent = true
				toks[j].s = entity(toks[j].r)
				changed = true
			}
		}
		for i, t := range toks {
			switch t.kind {
			case tOpen:
				if i+1 < len(toks) && toks[i+1].kind == tText && (isWS(firstRune(toks[i+1].s)) || firstRune(toks[i+1].s) == rune(t.s[0]) || strings.HasPrefix(toks[i+1].s, "\\")) {
					setEnt(i + 1)
				}
				inner := rune(0)
				if i+1 < len(toks) {
					inner = firstRune(toks[i+1].s)
				}
				if i > 0 {
					outer := lastRune(toks[i-1].s)
					if outer == rune(t.s[0]) || safe && !isWS(outer) ||
						(!isAlnum(inner) || t.s == "_") && !isWS(outer) && !isASCIIPunct(outer) {
						setEnt(i - 1)
					}
				}
			case tClose:
				if i > 0 && toks[i-1].kind == tText && (isWS(lastRune(toks[i-1].s)) || lastRune(toks[i-1].s) == rune(t.s[0])) {
					setEnt(i - 1)
				}
				inner := rune(0)
				if i > 0 {
					inner = lastRune(toks[i-1].s)
				}
				if i+1 < len(toks) {
					outer := firstRune(toks[i+1].s)
					if outer == rune(t.s[0]) || lastRune(toks[i+1].s) == rune(t.s[0]) && toks[i+1].kind == tText || safe && !isWS(outer) ||
						(!isAlnum(inner) || t.s == "_") && !isWS(outer) && !isASCIIPunct(outer) {
						setEnt(i + 1)
					}
				}
			}
		}
	}
}
