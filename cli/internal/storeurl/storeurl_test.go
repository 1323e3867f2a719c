package storeurl_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/cli/internal/storeurl"
	"github.com/devworkwire/devworkwire/core"
	pgstore "github.com/devworkwire/devworkwire/store-postgres"
	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestParse(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "/xdg/state")
	tests := []struct {
		raw  string
		want storeurl.Target
	}{
		{"", storeurl.Target{Kind: "sqlite", Path: "/xdg/state/devworkwire/state.db"}},
		{"sqlite:///var/lib/dwire/state.db", storeurl.Target{Kind: "sqlite", Path: "/var/lib/dwire/state.db"}},
		{"sqlite://./rel/state.db", storeurl.Target{Kind: "sqlite", Path: "./rel/state.db"}},
		{"sqlite://rel.db", storeurl.Target{Kind: "sqlite", Path: "rel.db"}},
		{"sqlite:rel.db", storeurl.Target{Kind: "sqlite", Path: "rel.db"}},
		{"SQLITE:///a%20b/state.db", storeurl.Target{Kind: "sqlite", Path: "/a b/state.db"}},
		{"sqlite://~/s.db", storeurl.Target{Kind: "sqlite", Path: filepath.Join(home, "s.db")}},
		{"/plain/abs.db", storeurl.Target{Kind: "sqlite", Path: "/plain/abs.db"}},
		{"  relative/plain.db ", storeurl.Target{Kind: "sqlite", Path: "relative/plain.db"}},
		{"postgres://u:p@db.example:5432/dw?sslmode=require", storeurl.Target{Kind: "postgres", URL: "postgres://u:p@db.example:5432/dw?sslmode=require"}},
		{"postgresql://u@127.0.0.1/dw?schema=team_a&sslmode=disable", storeurl.Target{Kind: "postgres", URL: "postgresql://u@127.0.0.1/dw?sslmode=disable", Schema: "team_a"}},
		{"postgres:///dw?host=/run/postgresql", storeurl.Target{Kind: "postgres", URL: "postgres:///dw?host=%2Frun%2Fpostgresql"}},
	}
	for _, tc := range tests {
		got, err := storeurl.Parse(tc.raw)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.raw, got, err, tc.want)
		}
	}
}

func wantConfigInvalid(t *testing.T, err error, what string) *core.Error {
	t.Helper()
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeConfigInvalid || ce.Retryable {
		t.Fatalf("%s: err = %v, want CONFIG_INVALID", what, err)
	}
	if len(ce.Details) == 0 || ce.Details[0].Field != "store" {
		t.Fatalf("%s: details %+v do not name the field `store`", what, ce.Details)
	}
	return ce
}

func TestParseErrors(t *testing.T) {
	for _, raw := range []string{
		"mysql://u:hunter2-not-secret@h/db",
		"http://example.com/state.db",
		"postgres://u:hunter2-not-secret@/db", // no host
		"postgres://u:hunter2-not-secret@h/db?schema=Bad-Name",
		"postgres://u:hunter2-not-secret@h:port/db%zz",
		"sqlite://",
		"sqlite:///tmp/state.db?mode=ro",
		"sqlite:///tmp/dir/",
		"postgres:u@h/db",
		"://nothing",
	} {
		_, err := storeurl.Parse(raw)
		ce := wantConfigInvalid(t, err, raw)
		if strings.Contains(ce.Error(), "hunter2") {
			t.Errorf("Parse(%q) leaks the password: %v", raw, ce)
		}
	}
}

func TestDefaultURL(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	got, err := storeurl.DefaultURL()
	if err != nil || got != "sqlite:///x/state/devworkwire/state.db" {
		t.Fatalf("DefaultURL = %q, %v", got, err)
	}
}

func TestOpenSQLite(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, raw := range []string{"sqlite://" + filepath.Join(dir, "abs.db"), "sqlite://./rel.db", "plain.db"} {
		s, err := storeurl.Open(t.Context(), raw, storeurl.Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatalf("Open(%q): %v", raw, err)
		}
		if _, ok := s.(*sqlitestore.Store); !ok {
			t.Fatalf("Open(%q) = %T, want *sqlitestore.Store", raw, s)
		}
		p := core.Preview{Handle: "h", Kind: core.PreviewImport, Plan: []byte("{}"), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		if err := s.SavePreview(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	for _, f := range []string{"abs.db", "rel.db", "plain.db"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("store file %s not created: %v", f, err)
		}
	}
}

func TestOpenDefault(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	s, err := storeurl.Open(t.Context(), "", storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.(*sqlitestore.Store).Path(); got != filepath.Join(state, "devworkwire", "state.db") {
		t.Fatalf("default store at %s", got)
	}
}

func TestOpenPostgres(t *testing.T) {
	base, schema := pgtest.URL(t), pgtest.Schema(t)
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	s, err := storeurl.Open(t.Context(), base+sep+"schema="+schema, storeurl.Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	ps, ok := s.(*pgstore.Store)
	if !ok || ps.Schema() != schema {
		t.Fatalf("Open = %T (schema %v), want *pgstore.Store in %s", s, ps, schema)
	}
	if _, err := s.LoadPreview(t.Context(), "nope"); core.ErrorCode(err) != core.CodePreviewNotFound {
		t.Fatalf("LoadPreview on the opened store: %v", err)
	}
}

func TestOpenUnreachablePostgres(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	_, err = storeurl.Open(t.Context(), "postgres://u:pw-not-secret@"+addr+"/db?sslmode=disable&connect_timeout=2", storeurl.Options{})
	// An environment problem the person fixes (exit 2), naming host and
	// port; not a retryable INTERNAL_ERROR (exit 70).
	ce := wantConfigInvalid(t, err, "an unreachable Postgres store")
	if !strings.Contains(ce.Message, addr) {
		t.Fatalf("the message does not name %s: %v", addr, ce)
	}
	if strings.Contains(ce.Error(), "pw-not-secret") || (ce.Err != nil && strings.Contains(ce.Err.Error(), "pw-not-secret")) {
		t.Fatalf("error or its cause leaks the password: %v / %v", ce, ce.Err)
	}
}

func TestOpenBadSQLitePath(t *testing.T) {
	dir := t.TempDir()
	_, err := storeurl.Open(t.Context(), "sqlite://"+dir, storeurl.Options{})
	wantConfigInvalid(t, err, "a directory as the SQLite file")
}

// A Postgres URL's query is read strictly: unknown, repeated, wrongly
// cased or ';'-separated parameters are CONFIG_INVALID naming the
// parameter (they used to be accepted, or silently dropped so the default
// schema was used), and no value is ever quoted.
func TestParseQueryParameters(t *testing.T) {
	const base = "postgres://u:hunter2-not-secret@db.example:5432/dw"
	for _, tc := range []struct{ query, mentions string }{
		{"?schema=a&schema=b", `query parameter "schema" is given more than once`},
		{"?sslmode=disable&sslmode=require", `query parameter "sslmode" is given more than once`},
		{"?schema=x;y", `';' at query parameter "schema"`},
		{"?sslmode=disable;schema=team_a", `';' at query parameter "sslmode"`},
		{"?Schema=x", `query parameter "Schema" is not known: parameter names are lower-case (schema)`},
		{"?SSLMODE=disable", `query parameter "SSLMODE" is not known: parameter names are lower-case (sslmode)`},
		{"?schemaa=team_a", `query parameter "schemaa" is not known`},
		{"?keepalives=1", `query parameter "keepalives" is not known`},
		{"?sslmode=disable&password=hunter2-not-secret&password=x", `query parameter "password" is given more than once`},
		{"?HUNTER2-NOT-SECRET=1", "a query parameter is not known"},
		{"?password=%zzhunter2-not-secret", `the value of query parameter "password" cannot be decoded`},
		{"?sch%zzema=a", "a query parameter name cannot be decoded"},
	} {
		_, err := storeurl.Parse(base + tc.query)
		ce := wantConfigInvalid(t, err, tc.query)
		text := ce.Message + " " + ce.Details[0].Message
		if !strings.Contains(text, tc.mentions) {
			t.Errorf("Parse(%s): %q does not say %q", tc.query, text, tc.mentions)
		}
		if strings.Contains(strings.ToLower(text), "hunter2") {
			t.Errorf("Parse(%s) echoes a secret: %q", tc.query, text)
		}
	}
	// Known parameters, each once, still pass through (schema taken out).
	got, err := storeurl.Parse(base + "?sslmode=require&connect_timeout=5&schema=team_a&pool_max_conns=4&application_name=x&host=db2")
	want := storeurl.Target{Kind: "postgres", URL: base + "?application_name=x&connect_timeout=5&host=db2&pool_max_conns=4&sslmode=require", Schema: "team_a"}
	if err != nil || got != want {
		t.Fatalf("Parse with known parameters = %+v, %v; want %+v", got, err, want)
	}
}

// Open prunes audit records older than Options.Retention.Audit, on SQLite
// and on Postgres: what is within the retention reads back unchanged, and
// a zero retention keeps a year.
func TestOpenPrunesAuditPastTheRetention(t *testing.T) {
	for name, url := range map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "audit.db") },
		"postgres": func(t *testing.T) string {
			base, sep := pgtest.URL(t), "?"
			if strings.Contains(base, "?") {
				sep = "&"
			}
			return base + sep + "schema=" + pgtest.Schema(t)
		},
	} {
		t.Run(name, func(t *testing.T) {
			raw := url(t)
			day := 24 * time.Hour
			now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			open := func(r core.Retention) core.AuditStore {
				s, err := storeurl.Open(t.Context(), raw, storeurl.Options{Now: clock, Retention: r})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				t.Cleanup(func() { _ = s.Close() })
				return s.(core.AuditStore)
			}
			a := open(core.Retention{})
			by := &core.Actor{Kind: core.ActorPerson, User: "alice"}
			for _, age := range []time.Duration{400 * day, 200 * day, 40 * day, 20 * day} {
				if _, err := a.AppendAudit(t.Context(), core.AuditRecord{At: now.Add(-age), Event: core.AuditPreview, Handle: fmt.Sprintf("imp_%d", age/day), By: by}); err != nil {
					t.Fatal(err)
				}
			}
			handles := func(a core.AuditStore) []string {
				got, _, err := a.ListAudit(t.Context(), core.AuditFilter{}, 0)
				if err != nil {
					t.Fatal(err)
				}
				var hs []string
				for _, r := range got {
					if r.By == nil || r.By.User != "alice" {
						t.Errorf("record %s reads back as %+v", r.Handle, r)
					}
					hs = append(hs, r.Handle)
				}
				return hs
			}
			if got := handles(open(core.Retention{})); !slices.Equal(got, []string{"imp_20", "imp_40", "imp_200"}) {
				t.Errorf("after an open with the default retention: %v; want the records within a year", got)
			}
			if got := handles(open(core.Retention{Audit: 30 * day})); !slices.Equal(got, []string{"imp_20"}) {
				t.Errorf("after an open with a 30-day retention: %v; want imp_20 only", got)
			}
		})
	}
}
