-- DevWorkWire state store, schema version 8: shared pacing. One row per
-- pacing key (a tracker site's endpoint): the core.PaceState every
-- process sharing this store paces by, read and written in one
-- BEGIN IMMEDIATE transaction.
CREATE TABLE pace (
    key   TEXT PRIMARY KEY,
    state BLOB NOT NULL
) STRICT;
