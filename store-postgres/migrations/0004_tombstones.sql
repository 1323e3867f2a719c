-- DevWorkWire state store, schema version 4: tombstones of pruned
-- previews, so a pruned handle still answers PREVIEW_EXPIRED for the
-- retention period, and an index for pruning finished runs. {schema} is
-- replaced by the quoted schema name.
CREATE TABLE {schema}.preview_tombstones (
    handle     text        PRIMARY KEY,
    kind       text        NOT NULL,
    expired_at timestamptz NOT NULL
);
CREATE INDEX preview_tombstones_expired_at ON {schema}.preview_tombstones (expired_at);
CREATE INDEX runs_finished_at ON {schema}.runs (finished_at);
