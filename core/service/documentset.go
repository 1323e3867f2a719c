package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// Several documents in one preview: every planning document
// of a directory, recursively, is planned as one preview and committed as
// one run. Each document keeps what a single one has (its id, removed
// items, the id-collision check, its structure); the plan names its
// documents (importHead.Documents), the commit takes their locks in
// sorted order and fences every write against all of them, and the stale
// check covers every item. Epics are created before stories across the
// documents, so a story may name an epic of another document of the set
// ("Epic: infra-q1/e-1"); one naming an epic outside the set must find it
// in the tracker.

// DocumentSet is the planning documents of a directory as read for a
// preview (ReadDocuments); a front door that reads the files itself
// passes it as ImportPreviewInput.Set.
type DocumentSet struct {
	// Dir is the directory, as the front door gave it.
	Dir     string
	Files   []plan.SetFile
	Skipped []plan.Skipped
}

// ReadDocuments reads every planning document under dir (plan.ReadDir:
// recursively; hidden files and directories, other extensions and
// symbolic links are skipped and listed). Errors: SOURCE_NOT_FOUND (no
// such directory, or no planning document in it), SOURCE_PARSE_FAILED (a
// file over the size limit).
func ReadDocuments(dir string) (*DocumentSet, error) {
	files, skipped, err := plan.ReadDir(dir)
	if err != nil {
		return nil, planError(err)
	}
	return &DocumentSet{Dir: dir, Files: files, Skipped: skipped}, nil
}

// sourceDoc is one document of a preview, with sub-tasks in Items.
type sourceDoc struct {
	doc  *plan.Document
	path string // the file it was read from ("" when only bytes were given)
	file string // how messages name it in a set ("plans/infra.md"); "" for a single document
}

// previewDocuments reads and parses what a preview plans: one document
// (Data, or the file at Path), or every document of a set (Set, or the
// directory at Path). skipped lists a set's files that were not read.
// With the parser's refusal of documents that have problems (bad), docs
// are what can still be checked (plan.Options.ParseChecked): the caller
// reports bad with whatever else it finds in them.
func (s *WorkItemService) previewDocuments(in ImportPreviewInput) (docs []sourceDoc, set *DocumentSet, skipped []plan.Skipped, bad, err error) {
	opts := plan.Options{CustomFields: s.fields.Custom}
	set = in.Set
	if set == nil && in.Data == nil {
		if strings.TrimSpace(in.Path) == "" {
			return nil, nil, nil, nil, core.Errorf(core.CodeSourceNotFound, "No planning document given: pass the path of a .md, .yaml or .yml file, or of a directory of them.").
				WithDetails(core.Detail{Field: "path", Message: "missing"})
		}
		if fi, serr := os.Stat(in.Path); serr == nil && fi.IsDir() {
			if set, err = ReadDocuments(in.Path); err != nil {
				return nil, nil, nil, nil, err
			}
		}
	}
	if set == nil {
		data := in.Data
		if data == nil {
			if data, err = ReadDocument(in.Path); err != nil {
				return nil, nil, nil, nil, err
			}
		}
		doc, err := opts.ParseChecked(filepath.Base(in.Path), data)
		if err != nil {
			bad = planError(err)
		}
		if doc == nil {
			return nil, nil, nil, nil, bad
		}
		itemsAsReferences(bad, func(string) string { return doc.ID })
		return []sourceDoc{{doc: withSubtasks(doc), path: in.Path}}, nil, nil, bad, nil
	}
	ps, err := opts.ParseSet(set.Files, set.Skipped...)
	if err != nil {
		bad = planError(err)
	}
	if ps == nil || len(ps.Documents) == 0 {
		if bad == nil {
			bad = err
		}
		return nil, nil, nil, nil, bad
	}
	ids := map[string]string{} // file name → its document's id
	for i, doc := range ps.Documents {
		docs = append(docs, sourceDoc{doc: withSubtasks(doc), path: ps.Files[i].Path, file: ps.Files[i].Name})
		ids[ps.Files[i].Name] = doc.ID
	}
	itemsAsReferences(bad, func(file string) string { return ids[file] })
	return docs, set, ps.Skipped, bad, nil
}

// itemsAsReferences names the items of a parser refusal's problems by
// reference ("shop/s-3"), as every other problem of a preview names them
// (field values, sizes, structure, adoption), where the document's id is
// known: docID gives it for a problem's file ("" when not known).
func itemsAsReferences(err error, docID func(file string) string) {
	e, ok := err.(*core.Error)
	if !ok {
		return
	}
	for i, d := range e.Details {
		if d.Item == "" || strings.Contains(d.Item, "/") {
			continue
		}
		if id := docID(d.File); id != "" {
			e.Details[i].Item = string(core.NewReference(id, d.Item))
		}
	}
}

// externalEpics are the epic references of docs' stories into documents
// not among docs, deduplicated: they are looked up with the items.
func externalEpics(docs []sourceDoc) []core.Reference {
	var out []core.Reference
	storiesOfOutsideEpics(docs, func(_ sourceDoc, _ *plan.Item, ref core.Reference) {
		if !slices.Contains(out, ref) {
			out = append(out, ref)
		}
	})
	return out
}

// storiesOfOutsideEpics calls f with each story of docs that names an epic
// of a document not among docs, and that epic's reference.
func storiesOfOutsideEpics(docs []sourceDoc, f func(d sourceDoc, it *plan.Item, ref core.Reference)) {
	in := make(map[string]bool, len(docs))
	for _, d := range docs {
		in[d.doc.ID] = true
	}
	for _, d := range docs {
		for i := range d.doc.Items {
			it := &d.doc.Items[i]
			if ref := core.Reference(it.EpicRef); it.EpicRef != "" && !in[ref.Document()] {
				f(d, it, ref)
			}
		}
	}
}

// checkExternalEpics refuses (VALIDATION_FAILED, naming file, item and
// line) stories naming an epic of a document outside the preview that the
// tracker does not hold (found).
func checkExternalEpics(docs []sourceDoc, found map[core.Reference]core.WorkItem) error {
	var details []core.Detail
	storiesOfOutsideEpics(docs, func(d sourceDoc, it *plan.Item, ref core.Reference) {
		w, ok := found[ref]
		what := ""
		switch {
		case !ok:
			what = fmt.Sprintf("which is neither in the documents of this preview nor in the tracker; import document %s with this one (or first), or correct the Epic: line", ref.Document())
		case w.Kind != "" && w.Kind != core.KindEpic:
			what = fmt.Sprintf("which is a %s in the tracker (%s), not an epic; name an epic instead", w.Kind, w.Key)
		default:
			return
		}
		details = append(details, core.Detail{File: d.file, Item: string(core.NewReference(d.doc.ID, it.ID)), Field: "epic", Line: it.EpicRefLine,
			Message: fmt.Sprintf("Story %s references epic %s, %s", it.ID, ref, what)})
	})
	if len(details) == 0 {
		return nil
	}
	where := ""
	if f := details[0].File; f != "" {
		where = fmt.Sprintf(" (in %s line %d)", f, details[0].Line)
	}
	return core.Errorf(core.CodeValidationFailed, "%d %s an epic that does not exist (see details); nothing was stored. The first%s: %s.",
		len(details), map[bool]string{true: "story names", false: "stories name"}[len(details) == 1], where, details[0].Message).WithDetails(details...)
}

// inFile names a set's file in the details of err that name none (an
// error of one document's planning step); err is returned as it is for a
// single document.
func inFile(err error, file string) error {
	var e *core.Error
	if file == "" || !errors.As(err, &e) {
		return err
	}
	for i := range e.Details {
		if e.Details[i].File == "" {
			e.Details[i].File = file
		}
	}
	return err
}

// skippedWarning says which files of a directory were not read as
// planning documents, and why (at most 10 named).
func skippedWarning(skipped []plan.Skipped) string {
	if len(skipped) == 0 {
		return ""
	}
	var names []string
	for i, sk := range skipped {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(skipped)-10))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", sk.Name, sk.Why))
	}
	return fmt.Sprintf("%d entr%s of the directory %s not read as planning documents: %s.", len(skipped),
		map[bool]string{true: "y", false: "ies"}[len(skipped) == 1], map[bool]string{true: "was", false: "were"}[len(skipped) == 1], strings.Join(names, "; "))
}

// releaseAny is "all" as routed to each document of a set: every item the
// document holds back, and no refusal where it holds none (releasedAny
// checks the set as a whole).
const releaseAny = "\x00all"

// releaseFor routes the caller's release entries (ImportPreviewInput.
// ReleaseHeld) to docs: for one document, all of them as given; for a set,
// a reference to its document, an item id to the one document that
// defines it, "all" to every document. An entry naming no document of the
// set, or an id more than one defines, is VALIDATION_FAILED.
func releaseFor(docs []sourceDoc, several bool, release []string) ([][]string, error) {
	out := make([][]string, len(docs))
	if !several {
		out[0] = release
		return out, nil
	}
	at := map[string]int{}
	for i, d := range docs {
		at[d.doc.ID] = i
	}
	var details []core.Detail
	for _, r := range release {
		r = strings.TrimSpace(r)
		switch doc, _, isRef := strings.Cut(r, "/"); {
		case r == "":
		case strings.EqualFold(r, "all"):
			for i := range out {
				out[i] = append(out[i], releaseAny)
			}
		case isRef:
			if i, ok := at[doc]; ok {
				out[i] = append(out[i], r)
			} else {
				details = append(details, core.Detail{Field: "release_held", Item: r, Message: fmt.Sprintf("%s is not an item of the documents of this preview", r)})
			}
		default:
			var in []int
			for i, d := range docs {
				if slices.ContainsFunc(d.doc.Items, func(it plan.Item) bool { return it.ID == r }) {
					in = append(in, i)
				}
			}
			switch len(in) {
			case 1:
				out[in[0]] = append(out[in[0]], r)
			case 0:
				details = append(details, core.Detail{Field: "release_held", Item: r, Message: fmt.Sprintf("%s is not an item of the documents of this preview", r)})
			default:
				details = append(details, core.Detail{Field: "release_held", Item: r, Message: fmt.Sprintf("%s is an item of %d documents of this preview; name it by reference (%s/%s)", r, len(in), docs[in[0]].doc.ID, r)})
			}
		}
	}
	if len(details) > 0 {
		return nil, core.Errorf(core.CodeValidationFailed, "Cannot release %d item(s) (see details); nothing was stored. Name a held-back item of one of the documents by its reference (document/item), or release all.", len(details)).WithDetails(details...)
	}
	return out, nil
}

// releasedAny refuses "all" for a set none of whose documents holds an
// item back (as releaseHeld does for one document).
func releasedAny(several bool, release []string, entries []planEntry) error {
	if !several || !slices.ContainsFunc(release, func(r string) bool { return strings.EqualFold(strings.TrimSpace(r), "all") }) ||
		slices.ContainsFunc(entries, func(e planEntry) bool { return e.Released }) {
		return nil
	}
	return core.Errorf(core.CodeValidationFailed, "Cannot release all held-back items: no document of this preview holds an item back; nothing was stored. Preview without releasing.").
		WithDetails(core.Detail{Field: "release_held", Message: "all: no item of these documents is held back"})
}
