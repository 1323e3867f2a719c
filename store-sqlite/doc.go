// Package sqlitestore is the embedded core.Store: one SQLite file (by
// default $XDG_STATE_HOME/devworkwire/state.db) through the pure-Go
// modernc.org/sqlite driver, in WAL mode with a busy timeout and
// synchronous=FULL (a recorded outcome survives an OS crash, not only a
// killed process), so several
// dwire processes (the CLI and the MCP server) can share it. Consuming a
// preview handle and starting its run is one BEGIN IMMEDIATE transaction.
// Schema migrations are embedded and versioned with PRAGMA user_version.
package sqlitestore
