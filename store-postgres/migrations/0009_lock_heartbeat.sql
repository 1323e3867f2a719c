-- DevWorkWire state store, schema version 9: the commit lock's heartbeat.
-- Every take and renewal records when it happened (the server's now())
-- and the generation it was made at: a holder renews every second while
-- it works, so a holder silent for several seconds is dead or stalled
-- although its lease still runs. A row whose renewed_generation is not
-- its generation was last taken by an earlier version, which did not
-- record it: its heartbeat is unknown. {schema} is replaced by the
-- quoted schema name.
ALTER TABLE {schema}.locks ADD COLUMN renewed_at timestamptz;
ALTER TABLE {schema}.locks ADD COLUMN renewed_generation bigint NOT NULL DEFAULT 0;
