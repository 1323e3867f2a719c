-- DevWorkWire state store, schema version 3: lock generations (fencing
-- tokens). A released lock keeps its row with owner '' so the counter only
-- ever increases.
ALTER TABLE locks ADD COLUMN generation INTEGER NOT NULL DEFAULT 1;
