package mcpserver

import (
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// MaxRows bounds the rows one MCP result carries: the items of a preview
// or a commit, a preview's structure changes, and the children of an
// epic. A 100,000-item plan would
// otherwise be a 20 MB JSON-RPC line, more than the server itself accepts
// and far more than any model's context. The counts stay complete, the
// full plan stays in the store, and the commit executes all of it; the CLI
// keeps showing everything.
const MaxRows = 200

// MaxChangeBytes bounds the field changes (from, to, diff) one preview
// result carries in all: each change is already bounded by core
// (MaxChangeValue, MaxDiffLines), but 200 rows of long descriptions would
// still be more than a model should read at once. Rows past the budget
// keep changed_fields and lose their changes (changes_omitted counts
// them); the stored plan and `dwire review` still show them all.
const MaxChangeBytes = 96 << 10

// importPreviewResult is import_preview's result: the core preview with
// at most MaxRows items.
type importPreviewResult struct {
	service.ImportPreviewResult
	RowsTruncated bool `json:"rows_truncated" jsonschema:"true when items lists only some of the plan's items (changes first, in document order); counts always cover the whole plan, and the commit executes the whole stored plan"`
	RowsTotal     int  `json:"rows_total" jsonschema:"the number of items in the whole plan"`
	// ChangesOmitted counts the rows whose changes were left out
	// (MaxChangeBytes).
	ChangesOmitted int `json:"changes_omitted,omitempty" jsonschema:"rows whose changes were left out to keep the result small (their changed_fields still name the fields); a person sees them all with dwire review <preview_handle>"`
	// StructureTruncated and StructureTotal bound the structure list as
	// RowsTruncated and RowsTotal bound items (MaxRows).
	StructureTruncated bool `json:"structure_truncated" jsonschema:"true when structure lists only the first of the plan's dependency, sprint and order changes; the commit makes them all, and dwire review <preview_handle> shows them all"`
	StructureTotal     int  `json:"structure_total" jsonschema:"the number of dependency, sprint and order changes in the whole plan"`
}

// importCommitResult is import_commit's result with at most MaxRows items.
type importCommitResult struct {
	service.ImportCommitResult
	RowsTruncated bool `json:"rows_truncated" jsonschema:"true when items lists only some of the committed plan's items (writes first, in order); counts always cover the whole commit"`
	RowsTotal     int  `json:"rows_total" jsonschema:"the number of items in the whole commit"`
}

// getResult is workitem_get's result with at most MaxRows children.
type getResult struct {
	service.GetResult
	ChildrenTruncated bool `json:"children_truncated" jsonschema:"true when item.children lists only the first of the epic's stories; narrow with workitem_query (epic) to see the others"`
	ChildrenTotal     int  `json:"children_total" jsonschema:"the number of the epic's stories (0 for a story)"`
}

func boundPreview(r service.ImportPreviewResult) importPreviewResult {
	total := len(r.Items)
	r.Items = firstRows(r.Items, func(it service.PlanItem) bool { return it.Action != core.ActionUnchanged })
	omitted := 0
	r.Items, omitted = boundChanges(r.Items)
	structure := len(r.Structure)
	if structure > MaxRows {
		r.Structure = slices.Clip(r.Structure[:MaxRows])
	}
	return importPreviewResult{ImportPreviewResult: r, RowsTruncated: len(r.Items) < total, RowsTotal: total, ChangesOmitted: omitted,
		StructureTruncated: len(r.Structure) < structure, StructureTotal: structure}
}

// boundChanges keeps the rows' changes, in order, while they fit in
// MaxChangeBytes, and leaves out those of the rows after (counted). rows
// is not changed.
func boundChanges(rows []service.PlanItem) ([]service.PlanItem, int) {
	size, omitted := 0, 0
	var out []service.PlanItem
	for i, it := range rows {
		if len(it.Changes) == 0 {
			continue
		}
		for _, c := range it.Changes {
			size += len(c.Field) + len(c.From) + len(c.To) + len(c.Diff)
			for _, v := range append(slices.Clip(c.Added), c.Removed...) {
				size += len(v)
			}
			size += len(c.Base)
			for _, sd := range []*service.FieldSide{c.Tracker, c.Document} { // a conflict's two sides
				if sd != nil {
					size += len(sd.To) + len(sd.Diff)
					for _, v := range append(slices.Clip(sd.Added), sd.Removed...) {
						size += len(v)
					}
				}
			}
		}
		if size <= MaxChangeBytes {
			continue
		}
		if out == nil {
			out = slices.Clone(rows)
		}
		out[i].Changes = nil
		omitted++
	}
	if out == nil {
		return rows, 0
	}
	return out, omitted
}

func boundCommit(r service.ImportCommitResult) importCommitResult {
	total := len(r.Items)
	r.Items = firstRows(r.Items, func(it service.CommittedItem) bool { return it.Outcome != "skipped" })
	return importCommitResult{ImportCommitResult: r, RowsTruncated: len(r.Items) < total, RowsTotal: total}
}

// WholePreview is r in import_preview's shape with every row listed, for
// a door that shows a result whole (`dwire import --json`).
func WholePreview(r service.ImportPreviewResult) any {
	return importPreviewResult{ImportPreviewResult: r, RowsTotal: len(r.Items), StructureTotal: len(r.Structure)}
}

// WholeCommit is r in import_commit's shape with every row listed
// (`dwire import --json` after its confirmation, `dwire review --json`).
func WholeCommit(r service.ImportCommitResult) any {
	return importCommitResult{ImportCommitResult: r, RowsTotal: len(r.Items)}
}

// WholePull is r in pull_preview's shape with every row and the whole
// diff (`dwire pull --json`).
func WholePull(r service.PullPreviewResult) any {
	return pullPreviewResult{PullPreviewResult: r, RowsTotal: len(r.Items)}
}

// WholeExport is r in document_export's shape with the whole text
// (`dwire export --json`).
func WholeExport(r service.ExportResult) any {
	return exportResult{ExportResult: r, TextBytes: len(r.Text)}
}

// WholeGet is r in workitem_get's shape with every child listed, for a
// door that shows a result whole (`dwire show --json`): one shape for the
// same thing in both doors.
func WholeGet(r service.GetResult) any {
	return getResult{GetResult: r, ChildrenTotal: len(r.Item.Children)}
}

func boundGet(r service.GetResult) getResult {
	total := len(r.Item.Children)
	if total > MaxRows {
		r.Item.Children = slices.Clip(r.Item.Children[:MaxRows])
	}
	return getResult{GetResult: r, ChildrenTruncated: len(r.Item.Children) < total, ChildrenTotal: total}
}

// firstRows returns at most MaxRows of rows, never nil: every row that
// matters (a change) before the others, each group in its original order,
// and the chosen rows in their original order.
func firstRows[T any](rows []T, matters func(T) bool) []T {
	if rows == nil {
		return []T{}
	}
	if len(rows) <= MaxRows {
		return rows
	}
	keep := make([]bool, len(rows))
	n := 0
	for pass := 0; pass < 2 && n < MaxRows; pass++ {
		for i, r := range rows {
			if n == MaxRows {
				break
			}
			if !keep[i] && (pass == 1 || matters(r)) {
				keep[i] = true
				n++
			}
		}
	}
	out := make([]T, 0, MaxRows)
	for i, r := range rows {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out
}

// cutAtLineEnd is s cut after its last line end within max bytes, and
// whether it was cut; s as it is when it fits. A text with no line end
// within max is cut to "". The one rule for the texts a result bounds
// (document_export's text, pull_preview's diff).
func cutAtLineEnd(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	return s[:strings.LastIndexByte(s[:max], '\n')+1], true
}
