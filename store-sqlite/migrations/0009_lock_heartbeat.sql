-- DevWorkWire state store, schema version 9: the commit lock's heartbeat.
-- Every take and renewal records when it happened (Unix microseconds,
-- UTC) and the generation it was made at: a holder renews every second
-- while it works, so a holder silent for several seconds is dead or
-- stalled although its lease still runs. A row whose renewed_generation
-- is not its generation was last taken by an earlier version, which did
-- not record it: its heartbeat is unknown.
ALTER TABLE locks ADD COLUMN renewed_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE locks ADD COLUMN renewed_generation INTEGER NOT NULL DEFAULT 0;
