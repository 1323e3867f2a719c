package service

import (
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/merge"
	"github.com/devworkwire/devworkwire/core/plan"
)

// The import's fields (fields.go), its content (contentmerge.go) and the
// pull (pull.go) settle each part with the one three-way merge of
// core/merge; this file holds what they share around it: the resolution an
// item's drift marker asks for, a merge state as a preview row says it,
// and the bases a write records.

// takeFor is the resolution of part k's conflict the item's drift marker
// asks for: "Drift: take-document" alone, or naming k, takes the
// document's value. A part only a person changed is kept whatever the
// marker says (merge.Sides.Merge).
func takeFor(it plan.Item, k string) merge.Resolution {
	if takesField(it, k) {
		return merge.ForDocument
	}
	return merge.Unresolved
}

// fieldWrite is a merge state as a preview row says it (PlanField.Write).
func fieldWrite(s merge.State) FieldWrite {
	switch s {
	case merge.Same:
		return WriteUnchanged
	case merge.Write:
		return WriteSet
	case merge.Keep:
		return WriteKept
	case merge.TakeDocument:
		return WriteTakeDocument
	}
	return WriteConflict
}

// baseSet is what a write records as last written, per part: the digest
// (ItemSpec.FieldBases) and, where known, the value behind it
// (ItemSpec.BaseValues).
type baseSet struct {
	digests map[string]string
	values  map[string][]string
}

func newBaseSet() baseSet {
	return baseSet{digests: map[string]string{}, values: map[string][]string{}}
}

// move makes d, the digest of values v, part k's base.
func (b baseSet) move(k, d string, v []string) {
	b.digests[k], b.values[k] = d, v
}

// keep leaves part k's base as DevWorkWire last wrote it to w, with the
// value behind it where the provider kept one.
func (b baseSet) keep(w core.WorkItem, k string) {
	b.digests[k] = w.FieldBases[k]
	if v, ok := baseValue(w, k); ok {
		b.values[k] = v
	} else {
		delete(b.values, k)
	}
}

// record adds the bases to spec (next to any it has), each value as an
// import keeps it: at most MaxBaseValue.
func (b baseSet) record(spec *core.ItemSpec) {
	if spec.FieldBases == nil {
		spec.FieldBases = map[string]string{}
	}
	for k, d := range b.digests {
		spec.FieldBases[k] = d
	}
	for k, v := range b.values {
		setBaseValue(spec, k, v)
	}
}
