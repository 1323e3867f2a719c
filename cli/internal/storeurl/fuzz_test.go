package storeurl_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/cli/internal/storeurl"
	"github.com/devworkwire/devworkwire/core"
)

// FuzzParse: any input parses to a SQLite path or a Postgres URL without
// the schema parameter, or fails with CONFIG_INVALID naming `store` — and
// never echoes a password-like secret.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "sqlite:///a/b.db", "sqlite://./x.db", "x.db", "postgres://u:SECRETPW@h/db?schema=a_b",
		"postgresql://h/db?schema=BAD", "mysql://u:SECRETPW@h", "sqlite://a?b", "postgres:SECRETPW", "~/s.db", "::", "%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		t.Setenv("XDG_STATE_HOME", "/state")
		got, err := storeurl.Parse(raw)
		if err != nil {
			var ce *core.Error
			if !errors.As(err, &ce) || ce.Code != core.CodeConfigInvalid || len(ce.Details) == 0 || ce.Details[0].Field != "store" {
				t.Fatalf("Parse(%q): %v, want CONFIG_INVALID naming store", raw, err)
			}
			if strings.Contains(raw, "SECRETPW") && strings.Contains(ce.Error()+ce.Details[0].Message, "SECRETPW") {
				t.Fatalf("Parse(%q) echoes the secret: %v", raw, ce)
			}
			return
		}
		switch got.Kind {
		case "sqlite":
			if got.Path == "" || got.URL != "" {
				t.Fatalf("Parse(%q) = %+v", raw, got)
			}
		case "postgres":
			u, perr := url.Parse(got.URL)
			if got.URL == "" || got.Path != "" || perr != nil || u.Query().Has("schema") {
				t.Fatalf("Parse(%q) = %+v", raw, got)
			}
		default:
			t.Fatalf("Parse(%q) kind %q", raw, got.Kind)
		}
	})
}
