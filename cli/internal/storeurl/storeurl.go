// Package storeurl opens the state store named by a URL: the composition
// root's one way from configuration (field `store`, env DWIRE_STORE_URL)
// to a core.Store.
//
//	sqlite:///abs/path/state.db   SQLite file (absolute path)
//	sqlite://./rel/state.db       SQLite file relative to the working directory
//	/abs/path/state.db, rel.db    a plain path is an SQLite file
//	postgres://user:pass@host:5432/db?sslmode=require&schema=team_a
//	postgresql://…                the same; schema defaults to "devworkwire"
package storeurl

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
	pgstore "github.com/devworkwire/devworkwire/store-postgres"
	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

// Options configure Open.
type Options struct {
	// Now is the clock used to prune expired previews on open (nil means
	// time.Now).
	Now func() time.Time
	// Logger receives the stores' diagnostics (nil discards).
	Logger *slog.Logger
	// Retention applies to the prune on open (zero fields: the stores'
	// defaults, core.DefaultRetention).
	Retention core.Retention
}

// DefaultURL returns the embedded default:
// sqlite:///<$XDG_STATE_HOME or ~/.local/state>/devworkwire/state.db.
func DefaultURL() (string, error) {
	p, err := sqlitestore.DefaultPath()
	if err != nil {
		return "", err
	}
	return "sqlite://" + filepath.ToSlash(p), nil
}

// Target is a parsed store URL.
type Target struct {
	Kind   string // "sqlite" | "postgres"
	Path   string // SQLite: the file path as given (relative or absolute)
	URL    string // Postgres: the connection URL without the schema parameter
	Schema string // Postgres: the schema ("" = pgstore.DefaultSchema)
}

func invalid(why string) *core.Error {
	return core.Errorf(core.CodeConfigInvalid, "The store URL (field `store`, env DWIRE_STORE_URL) is not valid: %s. Use sqlite:///path/to/state.db, a plain file path, or postgres://USER:PASSWORD@HOST:5432/DATABASE?schema=NAME.", why).
		WithDetails(core.Detail{Field: "store", Message: why})
}

// Parse reads a store URL. "" means DefaultURL(). Errors never quote the
// URL (it may hold a password).
func Parse(raw string) (Target, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		d, err := DefaultURL()
		if err != nil {
			return Target{}, err
		}
		raw = d
	}
	scheme, rest, hasScheme := strings.Cut(raw, "://")
	if !hasScheme {
		if s, r, ok := strings.Cut(raw, ":"); ok && strings.EqualFold(s, "sqlite") {
			return sqlitePath(r)
		}
		if looksLikeScheme(raw) {
			return Target{}, invalid("it has no \"://\" after the scheme")
		}
		return sqlitePath(raw) // a plain path
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3":
		return sqlitePath(rest)
	case "postgres", "postgresql":
		u, err := url.Parse(raw)
		if err != nil {
			return Target{}, invalid("the Postgres URL cannot be parsed")
		}
		q, err := pgQuery(u.RawQuery)
		if err != nil {
			return Target{}, err
		}
		if u.Host == "" && q.Get("host") == "" {
			return Target{}, invalid("the Postgres URL names no host")
		}
		schema := q.Get("schema")
		if q.Has("schema") && !pgstore.ValidSchema(schema) {
			return Target{}, invalid("schema " + quote(schema) + " must be lower-case letters, digits and underscores, not starting with a digit or pg_")
		}
		q.Del("schema")
		u.RawQuery = q.Encode()
		return Target{Kind: "postgres", URL: u.String(), Schema: schema}, nil
	case "":
		return Target{}, invalid("the scheme is empty")
	default:
		return Target{}, invalid("scheme " + quote(scheme) + " is not supported (only sqlite and postgres are)")
	}
}

// pgParams are the query parameters a Postgres store URL may carry:
// schema (ours), the connection parameters pgx understands, pgxpool's
// pool settings, pgx's statement settings, and a few session settings
// passed to the server. Anything else would reach the server as a setting
// it may not know, so it is refused up front.
var pgParams = map[string]bool{
	"schema": true,
	// pgconn
	"host": true, "port": true, "database": true, "dbname": true, "user": true, "password": true, "passfile": true,
	"connect_timeout": true, "sslmode": true, "ssl": true, "sslkey": true, "sslcert": true, "sslcertmode": true,
	"sslrootcert": true, "sslnegotiation": true, "sslpassword": true, "sslsni": true, "krbspn": true, "krbsrvname": true,
	"target_session_attrs": true, "service": true, "servicefile": true, "min_protocol_version": true,
	"max_protocol_version": true, "channel_binding": true, "require_auth": true,
	// pgxpool
	"pool_max_conns": true, "pool_min_conns": true, "pool_min_idle_conns": true, "pool_max_conn_lifetime": true,
	"pool_max_conn_lifetime_jitter": true, "pool_max_conn_idle_time": true, "pool_health_check_period": true,
	"pool_ping_timeout": true,
	// pgx
	"statement_cache_capacity": true, "description_cache_capacity": true, "default_query_exec_mode": true,
	// session settings sent to the server
	"application_name": true, "options": true, "client_encoding": true, "timezone": true, "search_path": true,
	"statement_timeout": true, "lock_timeout": true, "idle_in_transaction_session_timeout": true,
}

// paramName names a query parameter for people: a parameter-like key
// (lower-case letters, digits, '_') quoted, anything else (it could be a
// pasted secret) not at all.
func paramName(key string) string {
	if key == "" || len(key) > 40 {
		return "a query parameter"
	}
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			if pgParams[strings.ToLower(key)] {
				return "query parameter " + quote(key)
			}
			return "a query parameter"
		}
	}
	return "query parameter " + quote(key)
}

// pgQuery parses a Postgres URL's query strictly: every parameter known
// (names are case-sensitive), given once, separated by '&' only. Values
// are never quoted in errors (password= may be among them).
func pgQuery(raw string) (url.Values, error) {
	q := url.Values{}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(strings.SplitN(k, ";", 2)[0])
		if err != nil {
			return nil, invalid("a query parameter name cannot be decoded (bad %-escape)")
		}
		name := paramName(key)
		if strings.Contains(part, ";") {
			return nil, invalid("the URL's query has a ';' at " + name + ": separate parameters with '&' (write a ';' inside a value as %3B)")
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, invalid("the value of " + name + " cannot be decoded (bad %-escape)")
		}
		if !pgParams[key] {
			if pgParams[strings.ToLower(key)] {
				return nil, invalid(name + " is not known: parameter names are lower-case (" + strings.ToLower(key) + ")")
			}
			return nil, invalid(name + " is not known: use schema=NAME or a libpq connection parameter such as sslmode or connect_timeout")
		}
		if q.Has(key) {
			return nil, invalid(name + " is given more than once: give it once")
		}
		q.Set(key, val)
	}
	return q, nil
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}

// looksLikeScheme reports whether s starts like "name:" with a short
// alphabetic name (a URL missing "//"), not like a path.
func looksLikeScheme(s string) bool {
	name, _, ok := strings.Cut(s, ":")
	if !ok || name == "" || len(name) > 16 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

func sqlitePath(p string) (Target, error) {
	if p == "" {
		return Target{}, invalid("the SQLite URL names no file")
	}
	if strings.ContainsAny(p, "?#") {
		return Target{}, invalid("SQLite URLs take no query or fragment ('?' or '#')")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return Target{}, invalid("it starts with ~ but HOME is not set")
		}
		p = filepath.Join(home, p[1:])
	}
	if unescaped, err := url.PathUnescape(p); err == nil {
		p = unescaped
	}
	if strings.HasSuffix(p, "/") {
		return Target{}, invalid("the SQLite path is a directory; name the file, e.g. …/state.db")
	}
	return Target{Kind: "sqlite", Path: filepath.FromSlash(p)}, nil
}

// Open opens the store the URL names. A bad URL is CONFIG_INVALID naming
// the field `store`; an unreachable server is a retryable INTERNAL_ERROR
// after at most the connect timeout (10s).
func Open(ctx context.Context, rawURL string, o Options) (core.Store, error) {
	t, err := Parse(rawURL)
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case "postgres":
		s, err := pgstore.Open(ctx, pgstore.Options{URL: t.URL, Schema: t.Schema, Now: o.Now, Logger: o.Logger, Retention: o.Retention})
		if err != nil {
			return nil, err
		}
		return s, nil
	default:
		s, err := sqlitestore.Open(ctx, sqlitestore.Options{Path: t.Path, Now: o.Now, Logger: o.Logger, Retention: o.Retention})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}
