-- DevWorkWire state store, schema version 4: tombstones of pruned
-- previews, so a pruned handle still answers PREVIEW_EXPIRED for the
-- retention period, and an index for pruning finished runs. Times are
-- Unix microseconds, UTC.
CREATE TABLE preview_tombstones (
    handle     TEXT    PRIMARY KEY,
    kind       TEXT    NOT NULL,
    expired_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX preview_tombstones_expired_at ON preview_tombstones (expired_at);
CREATE INDEX runs_finished_at ON runs (finished_at);
