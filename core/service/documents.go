package service

import (
	"context"
	"fmt"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// documents returns the store's DocumentStore, or nil.
func (s *WorkItemService) documents() core.DocumentStore {
	d, _ := s.st.(core.DocumentStore)
	return d
}

// recordDocument remembers, at the end of an import commit, the file each
// document was imported from and the items it listed. Best effort: a
// store fault is logged, the commit's result stands.
func (x *execution) recordDocument(ctx context.Context) {
	ds := x.s.documents()
	if ds == nil {
		return
	}
	for _, d := range x.pl.Head.docs() {
		r := core.DocumentRecord{Scope: x.pl.Head.Scope, Document: d.ID, Path: d.Path, UpdatedAt: core.UTCSecond(x.s.now())}
		for _, e := range x.pl.Entries {
			if doc, id := e.Spec.Reference.Split(); doc == d.ID && e.Action != ActionRemoved && e.Action != ActionClose {
				r.Items = append(r.Items, id)
			}
		}
		if err := ds.RecordDocument(context.WithoutCancel(ctx), r); err != nil {
			x.o.log.Warn("could not record the document's file and items", "code", core.ErrorCode(err), "document", r.Document)
		}
	}
}

// documentCollision checks a preview of doc read from path against the
// file its id was last imported from: another file reusing
// the id takes over the issues the tracker holds under it, which is a
// warning naming both files, and an error (VALIDATION_FAILED, nothing
// stored) when the document shares none of those items — then it is not
// a moved or renamed file but another plan with the same id. found holds
// what the tracker has of the document's items and of its removed ones.
func (s *WorkItemService) documentCollision(ctx context.Context, scope string, doc *plan.Document, path string, found map[core.Reference]core.WorkItem) (string, error) {
	ds := s.documents()
	if ds == nil || path == "" {
		return "", nil
	}
	recs, err := ds.LoadDocuments(ctx, scope, []string{doc.ID})
	if err != nil {
		return "", err
	}
	last, ok := recs[doc.ID]
	if !ok || last.Path == "" || SamePath(last.Path, path) {
		return "", nil
	}
	listed := make(map[core.Reference]bool, len(doc.Items))
	for _, it := range doc.Items {
		listed[core.NewReference(doc.ID, it.ID)] = true
	}
	held, shared := 0, 0
	for ref, w := range found {
		if ref.Document() == doc.ID && w.Reference == ref {
			held++
			if listed[ref] {
				shared++
			}
		}
	}
	switch {
	case held == 0:
		return "", nil
	case shared == 0:
		return "", core.Errorf(core.CodeValidationFailed, "Document id %s was last imported from %s, and this file (%s) lists none of the %d items the tracker holds under that id: it is another plan with the same id, and importing it would take those items as removed. Nothing was stored. Give this document its own id (id: … in its front matter, or at the top of a YAML document), or import %s.",
			doc.ID, last.Path, path, held, last.Path).WithDetails(core.Detail{Field: "id", Message: fmt.Sprintf("document id %s is %s's", doc.ID, last.Path)})
	}
	return fmt.Sprintf("Document id %s was last imported from %s; this file (%s) would take over its %d items in the tracker (it lists %d of them). If this file is a copy rather than the same plan moved or renamed, give it its own id before committing.",
		doc.ID, last.Path, path, held, shared), nil
}
