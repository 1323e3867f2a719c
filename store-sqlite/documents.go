package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

var _ core.DocumentStore = (*Store)(nil)

// RecordDocument implements core.DocumentStore.
func (s *Store) RecordDocument(ctx context.Context, r core.DocumentRecord) error {
	items, err := sqlrows.DocumentItems(r.Items)
	if err != nil {
		return s.fault(err, "record a document")
	}
	return s.write(ctx, "record a document", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO documents (scope, document, path, items, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (scope, document) DO UPDATE SET path = excluded.path, items = excluded.items, updated_at = excluded.updated_at`,
			r.Scope, r.Document, r.Path, items, dbTime(r.UpdatedAt))
		return err
	})
}

// LoadDocuments implements core.DocumentStore.
func (s *Store) LoadDocuments(ctx context.Context, scope string, documents []string) (map[string]core.DocumentRecord, error) {
	list, _ := json.Marshal(documents) // (strings always encode)
	return s.kit().Documents(ctx, scope, `SELECT `+sqlrows.DocumentColumns+` FROM documents WHERE scope = ? AND document IN (SELECT value FROM json_each(?))`, scope, string(list))
}

// ListDocumentIndex implements core.DocumentStore: a range of the index's
// primary key ("<document>/" up to "<document>0", '0' being the byte after
// '/').
func (s *Store) ListDocumentIndex(ctx context.Context, scope, document string) ([]core.IndexEntry, error) {
	return s.listIndex(ctx, scope, "list a document's dedup index", `reference >= ? AND reference < ? AND issue_key <> ''`, document+"/", document+"0")
}
