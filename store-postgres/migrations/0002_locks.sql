-- DevWorkWire state store, schema version 2: named locks with a lease
-- (the service holds one per document while it commits). {schema} is
-- replaced by the quoted schema name.
CREATE TABLE {schema}.locks (
    name       text        PRIMARY KEY,
    owner      text        NOT NULL,
    expires_at timestamptz NOT NULL
);
