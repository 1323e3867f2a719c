package sqlitestore_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storetest"
	"github.com/devworkwire/devworkwire/store-kit/migrations"
	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

// A store file of schema version 5 (the release that stored a pull's
// preview under the 'import' kind) opens at the current version, its pull
// previews of kind 'pull' and every other row as it was.
func TestSchema5PullPreviewsLoadAsPulls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations.Load(os.DirFS("."), "migrations")
	if err != nil || len(ms) < 5 {
		t.Fatalf("migrations 1-5: %d, %v", len(ms), err)
	}
	for _, m := range ms[:5] {
		if _, err := db.ExecContext(t.Context(), m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	for _, r := range storetest.LegacyPreviews() {
		if _, err := db.ExecContext(t.Context(), `INSERT INTO previews (handle, kind, scope, plan, plan_digest, created_at, expires_at) VALUES (?, ?, 's', ?, ?, 1, 4102444800000000)`, r.Handle, r.Stored, []byte(r.Plan), core.PlanDigest([]byte(r.Plan))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(t.Context(), `PRAGMA user_version = 5`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s := open(t, path)
	storetest.CheckLegacyPreviews(t, s)
	wantIntegrityOK(t, s)
	if v := sqlitestore.SchemaVersion(); v != 9 {
		t.Errorf("schema version %d; this test migrates 5 to 9", v)
	}
}
