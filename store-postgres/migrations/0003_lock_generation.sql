-- DevWorkWire state store, schema version 3: lock generations (fencing
-- tokens). A released lock keeps its row with owner '' so the counter only
-- ever increases. {schema} is replaced by the quoted schema name.
ALTER TABLE {schema}.locks ADD COLUMN generation bigint NOT NULL DEFAULT 1;
