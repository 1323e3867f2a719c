-- DevWorkWire state store, schema version 6: the audit trail
-- (core.AuditRecord, its JSON in body; at and handle copied out for
-- retention and lookups) and the gate policy (core.GatePolicy, its JSON
-- under the name 'gate'). Audit records are only ever inserted, and
-- deleted by retention: an UPDATE is refused. {schema} is replaced by the
-- quoted schema name.
CREATE TABLE {schema}.audit (
    seq    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at     timestamptz NOT NULL,
    handle text        NOT NULL,
    body   bytea       NOT NULL
);
CREATE INDEX audit_at ON {schema}.audit (at);
CREATE INDEX audit_handle ON {schema}.audit (handle);
CREATE FUNCTION {schema}.audit_never_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit records are never rewritten';
END
$$;
CREATE TRIGGER audit_never_rewritten BEFORE UPDATE ON {schema}.audit
    FOR EACH ROW EXECUTE FUNCTION {schema}.audit_never_rewritten();
CREATE TABLE {schema}.policy (
    name text  NOT NULL PRIMARY KEY,
    body bytea NOT NULL
);
