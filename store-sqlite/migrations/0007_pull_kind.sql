-- DevWorkWire state store, schema version 7: a pull's preview has its
-- own kind, 'pull'. Before, pulls were stored as 'import' previews and
-- told apart by a "pull" object in the plan: those rows become 'pull'
-- here. SQLite cannot change a CHECK constraint, so the table is rebuilt.
CREATE TABLE previews_v7 (
    handle      TEXT    PRIMARY KEY,
    kind        TEXT    NOT NULL CHECK (kind IN ('import', 'progress', 'pull')),
    scope       TEXT    NOT NULL,
    plan        BLOB    NOT NULL,
    plan_digest TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    consumed_at INTEGER,
    consumed_by TEXT
) STRICT;
INSERT INTO previews_v7 (handle, kind, scope, plan, plan_digest, created_at, expires_at, consumed_at, consumed_by)
SELECT handle,
       CASE WHEN kind <> 'import' OR NOT json_valid(CAST(plan AS TEXT)) THEN kind
            WHEN json_type(CAST(plan AS TEXT), '$.pull') = 'object' THEN 'pull'
            ELSE kind END,
       scope, plan, plan_digest, created_at, expires_at, consumed_at, consumed_by
FROM previews;
DROP TABLE previews;
ALTER TABLE previews_v7 RENAME TO previews;
CREATE INDEX previews_expires_at ON previews (expires_at);
