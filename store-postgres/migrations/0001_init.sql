-- DevWorkWire state store, schema version 1. {schema} is replaced by the
-- quoted schema name.
CREATE TABLE {schema}.previews (
    handle      text        PRIMARY KEY,
    kind        text        NOT NULL CHECK (kind IN ('import', 'progress')),
    scope       text        NOT NULL,
    plan        bytea       NOT NULL,
    plan_digest text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    consumed_at timestamptz,
    consumed_by text
);
CREATE INDEX previews_expires_at ON {schema}.previews (expires_at);

CREATE TABLE {schema}.runs (
    idempotency_key text        PRIMARY KEY,
    run_id          text        NOT NULL,
    handle          text        NOT NULL,
    state           text        NOT NULL CHECK (state IN ('in_progress', 'committed', 'partial', 'failed')),
    started_at      timestamptz NOT NULL,
    finished_at     timestamptz,
    result          bytea
);

CREATE TABLE {schema}.run_outcomes (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    idempotency_key text   NOT NULL REFERENCES {schema}.runs (idempotency_key),
    reference       text   NOT NULL,
    action          text   NOT NULL,
    issue_key       text   NOT NULL,
    outcome         text   NOT NULL,
    code            text   NOT NULL,
    message         text   NOT NULL
);
CREATE INDEX run_outcomes_key ON {schema}.run_outcomes (idempotency_key, seq);

CREATE TABLE {schema}.dedup_index (
    scope      text        NOT NULL,
    reference  text        NOT NULL,
    issue_key  text        NOT NULL,
    digest     text        NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (scope, reference)
);
