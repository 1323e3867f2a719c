package render

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Text from Jira and from documents can hold terminal control sequences
// (set the window title, clear the screen, hide text) and characters that
// reorder or hide what is shown (bidi overrides, zero-width characters).
// Everything printed for people passes through Clean or CleanText first:
// control characters are shown escaped (\x1b), bidi controls and
// zero-width characters as <U+202E>. Tab and newline stay. JSON output is
// left as it is (encoding/json escapes control characters itself).

// CleanText escapes control characters and invisible or direction-changing
// characters in s for a terminal.
func CleanText(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Invisible(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			return asciiFree(s)
		}
	}
	return true
}

// asciiFree is the slow path of isClean: s has non-ASCII bytes or
// controls; it is clean only when none of its runes needs escaping.
func asciiFree(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || Invisible(r) {
			return false
		}
		i += n
	}
	return true
}

// Invisible reports whether r changes the direction of the text around it
// or is not shown at all: the bidi embeddings, overrides, isolates and
// marks, and the zero-width characters. The zero-width joiner (U+200D) is
// not among them: emoji sequences need it.
func Invisible(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, // embeddings, overrides, isolates
		r == 0x200E, r == 0x200F, r == 0x061C, // marks
		r == 0x200B, r == 0x200C, r == 0x2060, r == 0xFEFF, r == 0x180E: // zero-width
		return true
	}
	return false
}

// Suspicious lists the invisible or direction-changing characters in s
// (as U+XXXX, each once), for a warning about a title.
func Suspicious(s string) []string {
	var out []string
	seen := map[rune]bool{}
	for _, r := range s {
		if (Invisible(r) || r == 0x200D) && !seen[r] {
			seen[r] = true
			out = append(out, fmt.Sprintf("U+%04X", r))
		}
	}
	return out
}

// Clean returns a copy of v (a result object) with every string in it
// passed through CleanText. v itself is not changed.
func Clean[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	out := reflect.New(rv.Type()).Elem()
	cleanValue(out, rv)
	return out.Interface().(T)
}

func cleanValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.String:
		dst.SetString(CleanText(src.String()))
	case reflect.Struct:
		dst.Set(src) // unexported fields (time.Time) as they are
		for i := 0; i < src.NumField(); i++ {
			if dst.Field(i).CanSet() {
				cleanValue(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			cleanValue(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		cleanValue(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			k := reflect.New(src.Type().Key()).Elem()
			cleanValue(k, it.Key())
			v := reflect.New(src.Type().Elem()).Elem()
			cleanValue(v, it.Value())
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
	default:
		dst.Set(src)
	}
}
