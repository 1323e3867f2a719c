// Package pgstore is the shared core.Store: PostgreSQL through a
// github.com/jackc/pgx/v5 pool, for teams whose CLI and MCP processes run
// on several machines. All tables live in one schema (option Schema,
// default "devworkwire"), so teams can share a database. Embedded versioned
// migrations run under a pg_advisory_lock; single use of a handle and run
// state transitions are conditional UPDATEs (… WHERE consumed_at IS NULL)
// and row locks.
package pgstore
