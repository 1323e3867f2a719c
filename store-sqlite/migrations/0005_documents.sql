-- DevWorkWire state store, schema version 5: what the store remembers of
-- each planning document at its last commit (core.DocumentRecord): the
-- file it was imported from and its item ids (a JSON array). Times are
-- Unix microseconds, UTC.
CREATE TABLE documents (
    scope      TEXT    NOT NULL,
    document   TEXT    NOT NULL,
    path       TEXT    NOT NULL,
    items      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, document)
) STRICT, WITHOUT ROWID;
