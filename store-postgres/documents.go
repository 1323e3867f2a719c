package pgstore

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

var _ core.DocumentStore = (*Store)(nil)

// RecordDocument implements core.DocumentStore.
func (s *Store) RecordDocument(ctx context.Context, r core.DocumentRecord) error {
	if err := s.check(); err != nil {
		return err
	}
	items, err := sqlrows.DocumentItems(r.Items)
	if err != nil {
		return s.fault(err, "record a document")
	}
	_, err = s.db.Exec(ctx, s.q(`INSERT INTO {schema}.documents (scope, document, path, items, updated_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (scope, document) DO UPDATE SET path = excluded.path, items = excluded.items, updated_at = excluded.updated_at`),
		r.Scope, r.Document, r.Path, items, dbTime(r.UpdatedAt))
	return s.fault(err, "record a document")
}

// LoadDocuments implements core.DocumentStore.
func (s *Store) LoadDocuments(ctx context.Context, scope string, documents []string) (map[string]core.DocumentRecord, error) {
	return s.kit().Documents(ctx, scope, s.q(`SELECT `+sqlrows.DocumentColumns+` FROM {schema}.documents WHERE scope = $1 AND document = ANY($2::text[])`), scope, documents)
}

// ListDocumentIndex implements core.DocumentStore (starts_with, not a
// range: the database's collation may not order '/' bytewise).
func (s *Store) ListDocumentIndex(ctx context.Context, scope, document string) ([]core.IndexEntry, error) {
	return s.listIndex(ctx, scope, "list a document's dedup index", `starts_with(reference, $2) AND issue_key <> ''`, document+"/")
}
