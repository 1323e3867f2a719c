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

// A store file truncated under a live process is named for what happened
// by every call that meets it: damaged (restore it from a backup) when
// the database file was cut, never "check that the store is reachable
// and not full"; a truncated shared-memory index (the -shm file, which
// only indexes the write-ahead log) is named as such, with the data
// unharmed once every process using it started again. The calls go
// through connections opened after the truncation, which read the file
// as it is now (a connection opened before still has its pages cached).
func TestTruncatedUnderALiveProcessNamesTheCause(t *testing.T) {
	for _, c := range []struct {
		name, file string
		size       int64
		words      []string
	}{
		{"emptied", "", 0, []string{"is damaged", "is now an empty file", "Restore it from a backup"}},
		{"cut after the header", "", 4096, []string{"is damaged", "Restore it from a backup"}},
		{"cut mid-way", "", 20000, []string{"is damaged", "Restore it from a backup"}},
		{"index emptied", "-shm", 0, []string{"shared-memory index", "-shm was truncated while in use", "data is not affected", "start again"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			s := storeWithRows(t, path)
			entry := core.IndexEntry{Scope: "x", Reference: "p/s-1", Key: "D-1"}
			if err := s.UpsertIndex(t.Context(), []core.IndexEntry{entry}); err != nil { // in the write-ahead log
				t.Fatal(err)
			}
			if err := os.Truncate(path+c.file, c.size); err != nil {
				t.Fatal(err)
			}
			if c.file == "" {
				s.DB().SetMaxIdleConns(0) // every call below on a connection opened after the cut
			}
			calls := map[string]func() error{
				"look up the dedup index": func() error {
					_, err := s.LookupIndex(t.Context(), "x", []core.Reference{"p/s-1"})
					return err
				},
				"update the dedup index": func() error {
					return s.UpsertIndex(t.Context(), []core.IndexEntry{{Scope: "x", Reference: "p/s-2", Key: "D-2"}})
				},
				"take a lock": func() error { _, err := s.AcquireLock(t.Context(), "n", "o", time.Minute); return err },
				"read a run":  func() error { _, _, err := s.GetRun(t.Context(), "k"); return err },
			}
			for what, call := range calls {
				err := call()
				if err == nil {
					t.Errorf("%s: no error on a store truncated under it", what)
					continue
				}
				msg := core.AsError(err).Message
				if strings.Contains(msg, "reachable and not full") {
					t.Errorf("%s: %q names the wrong cause", what, msg)
				}
				for _, w := range c.words {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: %q does not say %q", what, msg, w)
					}
				}
			}
			if c.file == "-shm" { // the advice holds: nothing was lost
				s.Close()
				again := open(t, path)
				got, err := again.LookupIndex(t.Context(), "x", []core.Reference{"p/s-1"})
				if err != nil || got["p/s-1"].Key != "D-1" {
					t.Fatalf("after every process started again: %v, %v; want the entry written before the index was truncated", got, err)
				}
				wantIntegrityOK(t, again)
			}
		})
	}
}
