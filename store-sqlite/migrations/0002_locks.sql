-- DevWorkWire state store, schema version 2: named locks with a lease
-- (the service holds one per document while it commits). Times are Unix
-- microseconds, UTC.
CREATE TABLE locks (
    name       TEXT    PRIMARY KEY,
    owner      TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
