package sqlitestore_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

// storeWithRows makes a store at path holding some rows in its main file
// (checkpointed), the way a store looks after some use.
func storeWithRows(t *testing.T, path string) *sqlitestore.Store {
	t.Helper()
	s := open(t, path)
	entries := make([]core.IndexEntry, 0, 400)
	for i := range 400 {
		entries = append(entries, core.IndexEntry{Scope: "https://x.atlassian.net/DEMO", Reference: core.Reference("plan/s-" + strings.Repeat("x", i%50) + string(rune('a'+i%26))), Key: "DEMO-1"})
	}
	if err := s.UpsertIndex(t.Context(), entries); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(t.Context(), `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	return s
}

// wantRefusal checks err is CONFIG_INVALID naming the field `store`, with
// words in its message and none of the advice that would lose the record
// of what earlier imports created.
func wantRefusal(t *testing.T, err error, words string) {
	t.Helper()
	wantConfigInvalid(t, err, words)
	msg := core.AsError(err).Message
	if !strings.Contains(msg, words) {
		t.Fatalf("message %q does not say %q", msg, words)
	}
	for _, bad := range []string{"a new one is created", "reachable and not full", "locked by another process"} {
		if strings.Contains(msg, bad) {
			t.Fatalf("message %q names the wrong cause or advice (%q)", msg, bad)
		}
	}
}

// An empty store file is damage, never a new store: SQLite would open it
// as an empty database and the dedup index would be gone without a word.
func TestEmptyStoreFileIsRefused(t *testing.T) {
	t.Run("nobody using it", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path})
		if err == nil {
			s.Close()
		}
		wantRefusal(t, err, "is an empty file")
		if st, err := os.Stat(path); err != nil || st.Size() != 0 {
			t.Fatalf("the refused file was changed: %v, %v", st, err)
		}
	})
	t.Run("truncated under a live process", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		storeWithRows(t, path) // stays open, as another process's would
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		s, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path, BusyTimeout: time.Second})
		if err == nil {
			s.Close()
		}
		wantRefusal(t, err, "is an empty file")
	})
}

func TestTruncatedStoreIsNamedDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	storeWithRows(t, path).Close()
	if err := os.Truncate(path, 8192); err != nil {
		t.Fatal(err)
	}
	s, err := sqlitestore.Open(t.Context(), sqlitestore.Options{Path: path})
	if err == nil {
		s.Close()
	}
	wantRefusal(t, err, "is damaged")
	if msg := core.AsError(err).Message; !strings.Contains(msg, "Restore it from a backup") {
		t.Fatalf("message %q does not say what to do", msg)
	}
}

// A new store appears whole or not at all, and what a maker that died
// part-way left behind is swept by the next maker.
func TestNewStoreLeavesNoOtherFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	left := filepath.Join(dir, "state.db.new-123")
	if err := os.WriteFile(left, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(left, old, old); err != nil {
		t.Fatal(err)
	}
	s := open(t, path)
	var v int
	if err := s.DB().QueryRowContext(t.Context(), `PRAGMA user_version`).Scan(&v); err != nil || v != sqlitestore.SchemaVersion() {
		t.Fatalf("user_version = %d, %v; want %d", v, err, sqlitestore.SchemaVersion())
	}
	wantIntegrityOK(t, s)
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		switch e.Name() {
		case "state.db", "state.db-wal", "state.db-shm":
		default:
			t.Errorf("%s is left next to the new store", e.Name())
		}
	}
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the dead maker's file is still there: %v", err)
	}
}
