// Package sqlitestore is the embedded core.Store: one SQLite file (by
// default $XDG_STATE_HOME/devworkwire/state.db) through the pure-Go
// modernc.org/sqlite driver, in WAL mode with a busy timeout, so several
// dwire processes (the CLI and the MCP server) can share it, and with
// synchronous=FULL, so a recorded outcome survives an OS crash as well as
// a killed process. Consuming a preview handle and starting its run is one
// BEGIN IMMEDIATE transaction. Schema migrations are embedded and
// versioned with PRAGMA user_version.
package sqlitestore
