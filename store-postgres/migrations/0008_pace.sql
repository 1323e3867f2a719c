-- DevWorkWire state store, schema version 8: shared pacing. One row per
-- pacing key (a tracker site's endpoint): the core.PaceState every
-- process sharing this store paces by, read with its row locked and
-- written back in one transaction. {schema} is replaced by the quoted
-- schema name.
CREATE TABLE {schema}.pace (
    key   text  PRIMARY KEY,
    state bytea NOT NULL
);
