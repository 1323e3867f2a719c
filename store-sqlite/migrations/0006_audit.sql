-- DevWorkWire state store, schema version 6: the audit trail
-- (core.AuditRecord, its JSON in body; at and handle copied out for
-- retention and lookups) and the gate policy (core.GatePolicy, its JSON
-- under the name 'gate'). Audit records are only ever inserted, and
-- deleted by retention: an UPDATE is refused. Times are Unix
-- microseconds, UTC.
CREATE TABLE audit (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    at     INTEGER NOT NULL,
    handle TEXT    NOT NULL,
    body   BLOB    NOT NULL
) STRICT;
CREATE INDEX audit_at ON audit (at);
CREATE INDEX audit_handle ON audit (handle);
CREATE TRIGGER audit_never_rewritten BEFORE UPDATE ON audit
BEGIN
    SELECT RAISE(ABORT, 'audit records are never rewritten');
END;
CREATE TABLE policy (
    name TEXT NOT NULL PRIMARY KEY,
    body BLOB NOT NULL
) STRICT, WITHOUT ROWID;
