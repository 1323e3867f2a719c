-- DevWorkWire state store, schema version 1.
-- Times are Unix microseconds, UTC. NULL means "not yet".
CREATE TABLE previews (
    handle      TEXT    PRIMARY KEY,
    kind        TEXT    NOT NULL CHECK (kind IN ('import', 'progress')),
    scope       TEXT    NOT NULL,
    plan        BLOB    NOT NULL,
    plan_digest TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    consumed_at INTEGER,
    consumed_by TEXT
) STRICT;
CREATE INDEX previews_expires_at ON previews (expires_at);

CREATE TABLE runs (
    idempotency_key TEXT    PRIMARY KEY,
    run_id          TEXT    NOT NULL,
    handle          TEXT    NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('in_progress', 'committed', 'partial', 'failed')),
    started_at      INTEGER NOT NULL,
    finished_at     INTEGER,
    result          BLOB
) STRICT;

CREATE TABLE run_outcomes (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    idempotency_key TEXT    NOT NULL REFERENCES runs (idempotency_key),
    reference       TEXT    NOT NULL,
    action          TEXT    NOT NULL,
    issue_key       TEXT    NOT NULL,
    outcome         TEXT    NOT NULL,
    code            TEXT    NOT NULL,
    message         TEXT    NOT NULL
) STRICT;
CREATE INDEX run_outcomes_key ON run_outcomes (idempotency_key, seq);

CREATE TABLE dedup_index (
    scope      TEXT    NOT NULL,
    reference  TEXT    NOT NULL,
    issue_key  TEXT    NOT NULL,
    digest     TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, reference)
) STRICT, WITHOUT ROWID;
