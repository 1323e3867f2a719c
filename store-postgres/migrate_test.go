package pgstore_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/store-kit/migrations"
	pgstore "github.com/devworkwire/devworkwire/store-postgres"
	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// A schema of version 5 (the release that stored a pull's preview under
// the 'import' kind) opens at the current version, its pull previews of
// kind 'pull' and every other row as it was.
func TestSchema5PullPreviewsLoadAsPulls(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	q := pgx.Identifier{schema}.Sanitize()
	if _, err := conn.Exec(t.Context(), `CREATE SCHEMA `+q+`; CREATE TABLE `+q+`.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	ms, err := migrations.Load(os.DirFS("."), "migrations")
	if err != nil || len(ms) < 5 {
		t.Fatalf("migrations 1-5: %d, %v", len(ms), err)
	}
	for _, m := range ms[:5] {
		if _, err := conn.Exec(t.Context(), strings.ReplaceAll(m.SQL, "{schema}", q)); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if _, err := conn.Exec(t.Context(), fmt.Sprintf(`INSERT INTO %s.schema_migrations (version, name) VALUES ($1, $2)`, q), m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range storetest.LegacyPreviews() {
		if _, err := conn.Exec(t.Context(), fmt.Sprintf(`INSERT INTO %s.previews (handle, kind, scope, plan, plan_digest, created_at, expires_at) VALUES ($1, $2, 's', $3, $4, now(), now() + interval '1 day')`, q),
			r.Handle, r.Stored, []byte(r.Plan), core.PlanDigest([]byte(r.Plan))); err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, url, schema)
	storetest.CheckLegacyPreviews(t, s)
	if v := pgstore.SchemaVersion(); v != 9 {
		t.Errorf("schema version %d; this test migrates 5 to 9", v)
	}
}
