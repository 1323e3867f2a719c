-- DevWorkWire state store, schema version 5: what the store remembers of
-- each planning document at its last commit (core.DocumentRecord): the
-- file it was imported from and its item ids (a JSON array). {schema} is
-- replaced by the quoted schema name.
CREATE TABLE {schema}.documents (
    scope      text        NOT NULL,
    document   text        NOT NULL,
    path       text        NOT NULL,
    items      text        NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (scope, document)
);
