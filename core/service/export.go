package service

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// Export: a planning document written from existing issues,
// whose first import adopts them (each item carries its issue's Key line)
// and so plans no create. Reads only.

// ExportInput says what to export and how.
type ExportInput struct {
	core.IssueSelection
	// Format is plan.FormatMarkdown (default) or plan.FormatYAML.
	Format string
	// Document is the document id; "" derives one: the id the exported
	// issues' references share, else the epic's key, the project's, or
	// "export".
	Document string
	// AllWarnings names every issue in the warnings; without it each
	// kind of warning is one line naming at most MaxWarningKeys issues
	// (and counting the rest), whatever the size of the selection.
	AllWarnings bool
}

// ExportResult is the document written from the issues.
type ExportResult struct {
	ResultType string `json:"result_type"` // "preview": nothing was written
	RunID      string `json:"run_id"`
	Document   string `json:"document"` // the document id
	Format     string `json:"format"`
	Text       string `json:"text"` // the planning document
	// Counts of the exported items by kind; Adopt are those whose first
	// import adopts them (Key line, no reference yet).
	Epics    int `json:"epics"`
	Stories  int `json:"stories"`
	Subtasks int `json:"subtasks"`
	Adopt    int `json:"adopt"`
	// Warnings: one per kind, each naming at most MaxWarningKeys issues
	// (with the count of all) unless ExportInput.AllWarnings.
	Warnings []string `json:"warnings,omitempty"`
	// WarningsTruncated is true when a warning names only some of the
	// issues it counts.
	WarningsTruncated bool `json:"warnings_truncated" jsonschema:"true when a warning names only some of the issues it counts (at most 5 each, with the count of all); the last warning says how to see every one"`
}

// Export reads the selected issues (with their parents, so no story loses
// its epic) and writes them as one planning document: items in backlog
// order, ids from the keys ("PROJ-12" → "proj-12") or from the references
// they already carry, a Key line on each, the fields, dependencies,
// sub-tasks and active or future sprint the plan format knows. The
// document is parsed back before it is returned; an item that would not
// read back as exported is named in a warning.
func (s *WorkItemService) Export(ctx context.Context, in ExportInput) (ExportResult, error) {
	ctx, o := s.begin(ctx, "export")
	res, err := s.export(ctx, in)
	if err != nil {
		return ExportResult{}, o.fail(err)
	}
	res.RunID = o.runID
	o.done("document exported", "document", res.Document, "epics", res.Epics, "stories", res.Stories, "subtasks", res.Subtasks)
	return res, nil
}

func (s *WorkItemService) export(ctx context.Context, in ExportInput) (ExportResult, error) {
	sel := in.IssueSelection
	sel.Epic, sel.Query = strings.TrimSpace(sel.Epic), strings.TrimSpace(sel.Query)
	n := 0
	sel.Project = strings.TrimSpace(sel.Project)
	for _, set := range []bool{sel.Epic != "", sel.Query != "", sel.Project != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return ExportResult{}, core.Errorf(core.CodeValidationFailed, "Say which issues to export: an epic's key, a query, or the whole project (exactly one of them; %d given).", n).
			WithDetails(core.Detail{Field: "selection", Message: "give exactly one of epic, query, project"})
	}
	format := plan.FormatName(in.Format) // md and yml too, as the front doors take them
	if format == "" {
		format = plan.FormatMarkdown
	}
	if format != plan.FormatMarkdown && format != plan.FormatYAML {
		return ExportResult{}, core.Errorf(core.CodeValidationFailed, "%q is not a document format; use %s or %s.", in.Format, plan.FormatMarkdown, plan.FormatYAML).
			WithDetails(core.Detail{Field: "format", Message: "markdown or yaml"})
	}
	in.Document = strings.TrimSpace(in.Document)
	if in.Document != "" && !plan.ValidID(in.Document) {
		return ExportResult{}, core.Errorf(core.CodeValidationFailed, "The document id %q is not valid: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.", in.Document).
			WithDetails(core.Detail{Field: "document", Message: "not a valid id"})
	}
	r, ok := s.p.(core.IssueReader)
	if !ok {
		return ExportResult{}, core.Errorf(core.CodeConfigInvalid, "This tracker connection cannot list issues for an export.")
	}
	items, err := r.ReadIssues(ctx, sel)
	if err != nil {
		return ExportResult{}, err
	}
	if len(items) == 0 {
		return ExportResult{}, core.Errorf(core.CodeWorkItemNotFound, "No issue matches %s, so there is nothing to export. Check the selection.", describeSelection(sel))
	}
	ex := &exporter{s: s, byKey: map[string]core.WorkItem{}, all: in.AllWarnings}
	for _, w := range items {
		ex.add(w)
	}
	if err := ex.parents(ctx); err != nil {
		return ExportResult{}, err
	}
	if err := ex.people(ctx); err != nil {
		return ExportResult{}, err
	}
	docID := ex.documentID(in.Document, sel)
	doc, err := ex.document(docID)
	if err != nil {
		return ExportResult{}, err
	}
	if err := ex.sprints(ctx, doc); err != nil {
		return ExportResult{}, err
	}
	comment := fmt.Sprintf("Exported from %s by DevWorkWire (%s).\nEach item's Key line names the issue it is: the first import adopts them\n(it writes their references) instead of creating new issues.", s.p.Scope(), describeSelection(sel))
	text, err := plan.Render(doc, format, comment)
	if err != nil {
		return ExportResult{}, core.Wrap(err, core.CodeInternal, "The exported document could not be written.")
	}
	res := ExportResult{ResultType: ResultPreview, Document: docID, Format: format, Text: string(text)}
	for _, it := range append(slices.Clone(doc.Items), doc.Subtasks...) {
		switch core.Kind(it.Kind) {
		case core.KindEpic:
			res.Epics++
		case core.KindSubtask:
			res.Subtasks++
		default:
			res.Stories++
		}
		if ex.byKey[it.Key].Reference == "" {
			res.Adopt++
		}
	}
	if err := ex.partOf(ctx, doc); err != nil {
		return ExportResult{}, err
	}
	ex.checkExport(doc, format, text)
	res.Warnings, res.WarningsTruncated = ex.warnings, ex.cut
	return res, nil
}

func describeSelection(sel core.IssueSelection) string {
	switch {
	case sel.Epic != "":
		return "epic " + sel.Epic + " and its children"
	case sel.Query != "":
		return fmt.Sprintf("the query %q", sel.Query)
	}
	return "every issue of project " + sel.Project
}

// exporter builds the document from the issues read.
type exporter struct {
	s        *WorkItemService
	order    []string // keys, as read
	byKey    map[string]core.WorkItem
	ids      map[string]string // key → item id
	names    map[string]string // a person's account id → how the document writes them
	warnings []string
	all      bool // name every issue in the warnings (ExportInput.AllWarnings)
	cut      bool // a warning names only some of its issues
}

// MaxWarningKeys is the number of issues one export warning names (the
// others are counted), so that the warnings stay a few lines whatever the
// size of the selection.
const MaxWarningKeys = 5

// list is keys joined, at most MaxWarningKeys of them then ", … N more"
// (every one with AllWarnings).
func (ex *exporter) list(keys []string) string {
	if ex.all || len(keys) <= MaxWarningKeys {
		return strings.Join(keys, ", ")
	}
	ex.cut = true
	return fmt.Sprintf("%s, … %d more", strings.Join(keys[:MaxWarningKeys], ", "), len(keys)-MaxWarningKeys)
}

func (ex *exporter) add(w core.WorkItem) {
	if _, dup := ex.byKey[w.Key]; dup || w.Key == "" {
		return
	}
	ex.byKey[w.Key] = w
	ex.order = append(ex.order, w.Key)
}

// parents adds the epic of every story and the story (and epic) of every
// sub-task the selection holds without them: an item whose parent is not
// in the document would lose it at the first import.
func (ex *exporter) parents(ctx context.Context) error {
	var added, unread []string
	for i := 0; i < len(ex.order); i++ {
		w := ex.byKey[ex.order[i]]
		if w.ParentKey == "" || w.Kind == core.KindEpic {
			continue
		}
		if _, ok := ex.byKey[w.ParentKey]; ok {
			continue
		}
		p, err := ex.s.p.Get(ctx, w.ParentKey)
		if core.ErrorCode(err) == core.CodeWorkItemNotFound {
			unread = append(unread, fmt.Sprintf("%s (parent %s)", w.Key, w.ParentKey))
			continue
		}
		if err != nil {
			return err
		}
		ex.add(p) // its own parent is checked in a later round
		added = append(added, p.Key)
	}
	if len(unread) > 0 {
		ex.warnings = append(ex.warnings, fmt.Sprintf("%s could not be read, so %s exported without %s; the first import would take %s out of %s: %s.",
			core.Plural(len(unread), "issue's parent", "issues' parents"), oneMany(len(unread), "it is", "they are"), oneMany(len(unread), "it", "them"),
			oneMany(len(unread), "it", "them"), oneMany(len(unread), "that parent", "those parents"), ex.list(unread)))
	}
	if len(added) > 0 {
		ex.warnings = append(ex.warnings, fmt.Sprintf("Added %s of exported issues from outside the selection, so that no item loses its epic or story: %s.",
			core.Plural(len(added), "parent", "parents"), ex.list(added)))
	}
	return nil
}

// people settles how the document writes each person its issues name
// (personNames).
func (ex *exporter) people(ctx context.Context) error {
	items := make([]core.WorkItem, 0, len(ex.order))
	for _, k := range ex.order {
		items = append(items, ex.byKey[k])
	}
	names, warnings, err := ex.s.personNames(ctx, items)
	ex.names, ex.warnings = names, append(ex.warnings, warnings...)
	return err
}

// personNames are how a document writes each person items' fields name
// (account id → as written), so that it reads well and an import
// resolves it back to the same account: as the configuration names them
// (FieldOptions.People), else by the e-mail the tracker shows
// (PeopleReader), else by the account id (absent from the map). A tracker
// that refuses to show people is a warning, not an error.
func (s *WorkItemService) personNames(ctx context.Context, items []core.WorkItem) (map[string]string, []string, error) {
	names := make(map[string]string, len(s.fields.People))
	for acc, name := range s.fields.People {
		names[acc] = name
	}
	pr, ok := s.p.(core.PeopleReader)
	if !ok || len(items) == 0 {
		return names, nil, nil
	}
	emails, err := pr.People(ctx, items)
	if core.ErrorCode(err) == core.CodeJiraPermissionDenied {
		return names, []string{"People are written as account ids (or as the configuration names them): this connection may not read their e-mails in the tracker. An import resolves account ids too."}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for acc, email := range emails {
		if _, named := names[acc]; !named && email != "" {
			names[acc] = email
		}
	}
	return names, nil, nil
}

// documentID is the document's id: the one asked for, else the one every
// reference the issues carry shares, else derived from the selection.
func (ex *exporter) documentID(asked string, sel core.IssueSelection) string {
	if asked != "" {
		return asked
	}
	docs := map[string]bool{}
	for _, w := range ex.byKey {
		if w.Reference != "" {
			docs[w.Reference.Document()] = true
		}
	}
	if len(docs) == 1 {
		for d := range docs {
			return d
		}
	}
	switch {
	case sel.Epic != "":
		return strings.ToLower(sel.Epic)
	case plan.ValidID(strings.ToLower(sel.Project)):
		return strings.ToLower(sel.Project)
	}
	return "export"
}

// document builds the planning document: issues another document's
// references claim are left out (one warning names them, bounded); the
// others are items, in backlog order, sub-tasks under their stories. When
// every issue belongs to other documents there is nothing to export:
// VALIDATION_FAILED naming them.
func (ex *exporter) document(docID string) (*plan.Document, error) {
	var keep []core.WorkItem
	taken := map[string]bool{}
	owned := map[string][]string{} // document → keys of its issues
	var owners []string
	for _, k := range ex.order {
		w := ex.byKey[k]
		if d := w.Reference.Document(); w.Reference != "" && d != docID {
			if owned[d] == nil {
				owners = append(owners, d)
			}
			owned[d] = append(owned[d], w.Key)
			continue
		}
		keep = append(keep, w)
	}
	if len(owned) > 0 {
		slices.Sort(owners)
		var parts []string
		var details []core.Detail
		n := 0
		for i, d := range owners {
			n += len(owned[d])
			if i < maxListedOwners || ex.all {
				parts = append(parts, fmt.Sprintf("%s (%s)", d, ex.list(owned[d])))
			}
			details = append(details, core.Detail{Field: "document", Message: fmt.Sprintf("document %s holds %s", d, core.Plural(len(owned[d]), "selected issue", "selected issues"))})
		}
		if len(owners) > maxListedOwners && !ex.all {
			ex.cut = true
			parts = append(parts, fmt.Sprintf("and %s", core.Plural(len(owners)-maxListedOwners, "more document", "more documents")))
		}
		if len(keep) == 0 {
			return nil, core.Errorf(core.CodeValidationFailed, "Every selected issue already belongs to a planning document: %s. Nothing was exported. Export one document's issues at a time, giving its id as the document id (%s), or select issues no document holds.",
				strings.Join(parts, "; "), owners[0]).WithDetails(details...)
		}
		ex.warnings = append(ex.warnings, fmt.Sprintf("%s already %s to other documents, so %s not exported into %s: %s. Export each document's issues on their own, giving its id as the document id.",
			core.Plural(n, "issue", "issues"), oneMany(n, "belongs", "belong"), oneMany(n, "it is", "they are"), docID, strings.Join(parts, "; ")))
	}
	ex.ids = map[string]string{}
	for _, w := range keep { // ids the references fix come first
		if w.Reference != "" {
			id := refItem(w.Reference)
			ex.ids[w.Key], taken[id] = id, true
		}
	}
	for _, w := range keep {
		if w.Reference == "" {
			id := strings.ToLower(w.Key)
			for n := 2; taken[id]; n++ {
				id = fmt.Sprintf("%s-%d", strings.ToLower(w.Key), n)
			}
			ex.ids[w.Key], taken[id] = id, true
		}
	}
	slices.SortStableFunc(keep, func(a, b core.WorkItem) int { return compareRank(a, b) })
	doc := &plan.Document{ID: docID}
	var orphans []string
	for _, w := range keep {
		it := ex.item(w)
		if w.Kind == core.KindSubtask {
			if it.Story == "" {
				orphans = append(orphans, w.Key)
				continue
			}
			doc.Subtasks = append(doc.Subtasks, it)
			continue
		}
		doc.Items = append(doc.Items, it)
	}
	if len(orphans) > 0 {
		ex.warnings = append(ex.warnings, fmt.Sprintf("%s no story in the document, so %s not exported: %s.",
			core.Plural(len(orphans), "sub-task has", "sub-tasks have"), oneMany(len(orphans), "it is", "they are"), ex.list(orphans)))
	}
	return doc, nil
}

// partOf warns, once, when the export holds only part of the document
// whose id it carries: importing it as that document marks the items it
// leaves out removed (the import's removedRefs), which the warning names
// (at most MaxWarningKeys, with the count of all).
func (ex *exporter) partOf(ctx context.Context, doc *plan.Document) error {
	left, err := ex.s.removedRefs(ctx, ex.s.p.Scope(), doc)
	if err != nil || len(left) == 0 {
		return err
	}
	var refs []string
	for _, r := range left {
		if _, item := r.Split(); !strings.HasPrefix(item, "~") { // not a document's link record
			refs = append(refs, string(r))
		}
	}
	if len(refs) == 0 {
		return nil
	}
	ex.warnings = append(ex.warnings, fmt.Sprintf("This export holds only part of document %s: importing it as document %s marks the %s it leaves out removed (%s). Select all of the document's issues to export it whole, or give another document id to import the export as a document of its own.",
		doc.ID, doc.ID, core.Plural(len(refs), "item", "items"), ex.list(refs)))
	return nil
}

// maxListedOwners is the number of documents the warning about issues
// other documents hold names (each with at most MaxWarningKeys keys).
const maxListedOwners = 5

// oneMany is one when n is 1, else many.
func oneMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// compareRank orders issues by their rank (backlog order), then by key
// number; an issue without a rank sorts after those with one.
func compareRank(a, b core.WorkItem) int {
	switch {
	case a.Rank != "" && b.Rank != "":
		if c := strings.Compare(a.Rank, b.Rank); c != 0 {
			return c
		}
	case a.Rank != "":
		return -1
	case b.Rank != "":
		return 1
	}
	return keyNumber(a.Key) - keyNumber(b.Key)
}

func keyNumber(key string) int {
	_, n, _ := strings.Cut(key, "-")
	v, _ := strconv.Atoi(n)
	return v
}

// item is one issue as a plan item.
func (ex *exporter) item(w core.WorkItem) plan.Item {
	it := plan.Item{ID: ex.ids[w.Key], Kind: string(w.Kind), Title: w.Title, Description: strings.TrimSpace(w.Description), Key: w.Key}
	if w.Kind == "" {
		it.Kind = plan.KindStory
	}
	switch w.Kind {
	case core.KindSubtask:
		it.Story = ex.ids[w.ParentKey]
	case core.KindStory, "":
		it.Epic = ex.ids[w.ParentKey]
	}
	it.AcceptanceCriteria, it.CriteriaBoxes = unboxCriteria(w.AcceptanceCriteria)
	written := make(map[string][]string, len(w.Fields))
	for k, v := range w.Fields {
		written[k] = asWritten(v, ex.names) // people by name (pull.go)
	}
	it.Fields = exportFields(written)
	for _, b := range w.BlockedBy {
		it.DependsOn = append(it.DependsOn, ex.link(b.Key))
	}
	for _, b := range w.Blocks {
		if _, inDoc := ex.ids[b.Key]; !inDoc { // else written as the other item's Depends on
			it.Blocks = append(it.Blocks, ex.link(b.Key))
		}
	}
	if w.Sprint != "" && (w.Kind == core.KindStory || w.Kind == "") { // a sub-task is in its story's sprint (the format ignores its line)
		it.Fields.Sprint = plan.Field[string]{State: plan.FieldSet, Value: w.Sprint, From: plan.SourceItem}
	}
	return it
}

// link names an issue in a dependency line: its item id when exported,
// else its key.
func (ex *exporter) link(key string) plan.Link {
	if id, ok := ex.ids[key]; ok {
		return plan.Link{Kind: plan.LinkItem, Target: id}
	}
	return plan.Link{Kind: plan.LinkKey, Target: key}
}

// exportFields turns an issue's field values into the plan's fields (set
// where the issue has a value; the others left unmanaged).
func exportFields(f map[string][]string) plan.Fields {
	var out plan.Fields
	set := func(v string) plan.Field[string] {
		return plan.Field[string]{State: plan.FieldSet, Value: v, From: plan.SourceItem}
	}
	list := func(v []string) plan.Field[[]string] {
		return plan.Field[[]string]{State: plan.FieldSet, Value: slices.Clone(v), From: plan.SourceItem}
	}
	for k, v := range f { // each key sets its own field: order does not matter
		if len(v) == 0 {
			continue
		}
		switch k {
		case core.FieldLabels:
			out.Labels = list(v)
		case core.FieldComponents:
			out.Components = list(v)
		case core.FieldFixVersions:
			out.FixVersions = list(v)
		case core.FieldPriority:
			out.Priority = set(v[0])
		case core.FieldAssignee:
			out.Assignee = set(v[0])
		case core.FieldDue:
			out.Due = set(v[0])
		case core.FieldEstimate:
			if n, err := strconv.ParseFloat(v[0], 64); err == nil {
				out.Estimate = plan.Field[float64]{State: plan.FieldSet, Value: n, From: plan.SourceItem}
			}
		default:
			if name, ok := strings.CutPrefix(k, core.FieldCustomPrefix); ok {
				if out.Custom == nil {
					out.Custom = map[string]plan.Field[string]{}
				}
				out.Custom[name] = set(strings.Join(v, ", "))
			}
		}
	}
	return out
}

// sprints keeps a Sprint line only for a sprint an import can move items
// into (active or future): an item in a closed sprint is exported without
// one, with a warning. A tracker without sprints keeps none.
func (ex *exporter) sprints(ctx context.Context, doc *plan.Document) error {
	sp, ok := ex.s.p.(core.StructureProvider)
	state := map[string]string{}
	var closed []string
	for _, list := range [][]plan.Item{doc.Items, doc.Subtasks} {
		for i := range list {
			f := &list[i].Fields.Sprint
			if f.State != plan.FieldSet {
				continue
			}
			if !ok {
				*f = plan.Field[string]{}
				continue
			}
			name := f.Value
			if _, known := state[name]; !known {
				all, err := sp.Sprints(ctx, name)
				if err != nil {
					return err
				}
				state[name] = core.SprintClosed
				for _, s := range all {
					if s.State == core.SprintActive || s.State == core.SprintFuture {
						state[name] = s.State
					}
				}
			}
			if state[name] == core.SprintClosed {
				closed = append(closed, list[i].Key)
				*f = plan.Field[string]{}
			}
		}
	}
	if len(closed) > 0 {
		ex.warnings = append(ex.warnings, fmt.Sprintf("%s in closed sprints, so %s exported without a Sprint line (an import moves items only into active or future sprints): %s.",
			core.Plural(len(closed), "item is", "items are"), oneMany(len(closed), "it is", "they are"), ex.list(closed)))
	}
	return nil
}

// checkExport parses the document back and compares every item with what
// was exported (plan.SameItems: content, fields, dependencies, parents,
// keys, and no item more), warning of those that would not read as
// exported.
func (ex *exporter) checkExport(doc *plan.Document, format string, text []byte) {
	s := ex.s
	name := "export.md"
	if format == plan.FormatYAML {
		name = "export.yaml"
	}
	back, err := plan.Options{CustomFields: s.fields.Custom}.Parse(name, text)
	if err != nil {
		ex.warnings = append(ex.warnings, fmt.Sprintf("The exported document does not read back as a valid plan (%s); descriptions that hold lines the Markdown form reads as structure (item headings, \"Epic:\" lines, criteria labels) need editing, or export with the YAML format.", core.AsError(planError(err)).Message))
		return
	}
	keys := map[string]string{}
	for _, it := range append(slices.Clone(doc.Items), doc.Subtasks...) {
		keys[it.ID] = it.Key
	}
	off := plan.SameItems(doc, back)
	if len(off) == 0 {
		return
	}
	for i, id := range off {
		if k := keys[id]; k != "" {
			off[i] = k
		} else {
			off[i] = id + " (an item no issue is)"
		}
	}
	ex.warnings = append(ex.warnings, fmt.Sprintf("%s not read back exactly as exported: %s first import would change %s. Edit the descriptions in the tracker, or export with the YAML format: %s.",
		core.Plural(len(off), "item does", "items do"), oneMany(len(off), "its", "their"), oneMany(len(off), "it", "them"), ex.list(off)))
}
