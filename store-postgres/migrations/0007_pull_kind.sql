-- DevWorkWire state store, schema version 7: a pull's preview has its
-- own kind, 'pull'. Before, pulls were stored as 'import' previews and
-- told apart by a "pull" object in the plan: those rows become 'pull'
-- here. {schema} is replaced by the quoted schema name.
ALTER TABLE {schema}.previews DROP CONSTRAINT previews_kind_check;
ALTER TABLE {schema}.previews ADD CONSTRAINT previews_kind_check CHECK (kind IN ('import', 'progress', 'pull'));
-- (CASE: only a plan that names "pull" is read as JSON; every stored
-- plan is JSON, but a row a test wrote by hand need not be.)
UPDATE {schema}.previews SET kind = 'pull'
WHERE CASE WHEN kind = 'import' AND position('"pull"' in convert_from(plan, 'UTF8')) > 0
           THEN jsonb_typeof(convert_from(plan, 'UTF8')::jsonb -> 'pull') = 'object'
           ELSE false END;
