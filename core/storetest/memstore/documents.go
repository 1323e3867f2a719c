package memstore

import (
	"context"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// ListDocumentIndex implements core.DocumentStore.
func (s *Store) ListDocumentIndex(_ context.Context, scope, document string) ([]core.IndexEntry, error) {
	return s.listIndex(scope, 0, func(e core.IndexEntry) bool { return strings.HasPrefix(string(e.Reference), document+"/") })
}

// RecordDocument implements core.DocumentStore.
func (s *Store) RecordDocument(_ context.Context, r core.DocumentRecord) error {
	d, err := s.lock()
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	if d.docs == nil {
		d.docs = map[indexKey]core.DocumentRecord{}
	}
	r.Items = slices.Clone(r.Items)
	d.docs[indexKey{r.Scope, core.Reference(r.Document)}] = r
	return nil
}

// LoadDocuments implements core.DocumentStore.
func (s *Store) LoadDocuments(_ context.Context, scope string, documents []string) (map[string]core.DocumentRecord, error) {
	d, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer d.mu.Unlock()
	out := map[string]core.DocumentRecord{}
	for _, id := range documents {
		if r, ok := d.docs[indexKey{scope, core.Reference(id)}]; ok {
			r.Items = slices.Clone(r.Items)
			out[id] = r
		}
	}
	return out, nil
}
