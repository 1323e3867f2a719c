package service

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// Every problem at once: an import preview runs its checks in stages —
// the parser, the adoption of Key lines, the field values against the
// tracker, the sizes, the structure (dependencies, sprints) — and across a
// directory's documents. A stage's refusal no longer hides the next: each
// refusal (VALIDATION_FAILED, or a document that cannot be read at all)
// is kept here and the preview goes on with what can still be checked
// (the items that parsed: plan.Options.ParseChecked), then refuses once
// with every problem found. One refusal is returned as it is; several are
// one VALIDATION_FAILED listing each problem (with its file, item, field
// and line), at most plan.MaxProblems of them and an entry saying how many
// more there are.

// problemList gathers a preview's refusals.
type problemList struct {
	errs      []*core.Error
	structure []core.Detail // every document's structure problems: one refusal
}

// add keeps err when it is a refusal of the input (its details naming
// file where they name no file) and returns nil; any other error (the
// tracker, the store) is returned as it is.
func (l *problemList) add(err error, file string) error {
	if err == nil {
		return nil
	}
	e := core.AsError(err)
	if e.Code != core.CodeValidationFailed && e.Code != core.CodeSourceParseFailed {
		return err
	}
	l.errs = append(l.errs, inFile(e, file).(*core.Error))
	return nil
}

// any reports whether a problem was kept.
func (l *problemList) any() bool { return len(l.errs) > 0 || len(l.structure) > 0 }

// refusal is the one error for every problem kept (nil for none).
func (l *problemList) refusal() error {
	if len(l.structure) > 0 {
		l.errs = append(l.errs, core.AsError(structureRefusal(l.structure)))
		l.structure = nil
	}
	switch len(l.errs) {
	case 0:
		return nil
	case 1:
		return l.errs[0]
	}
	code := core.CodeValidationFailed
	var details []core.Detail
	n := 0
	for _, e := range l.errs {
		if e.Code == core.CodeSourceParseFailed {
			code = e.Code
		}
		ds, more := e.Details, 0
		var pe *plan.Error
		if errors.As(e.Err, &pe) && pe.Unlisted > 0 && len(ds) > 0 {
			ds, more = ds[:len(ds)-1], pe.Unlisted // its "N more" entry: counted here
		}
		if len(ds) == 0 {
			ds = []core.Detail{{Message: e.Message}}
		}
		n += len(ds) + more
		details = append(details, ds...)
	}
	if len(details) > plan.MaxProblems {
		details = details[:plan.MaxProblems]
	}
	if left := n - len(details); left > 0 {
		details = append(details, core.Detail{Message: fmt.Sprintf("%s not listed; fix the ones above and run the preview again to see the rest", core.Plural(left, "more problem is", "more problems are"))})
	}
	first := details[0]
	where := ""
	switch {
	case first.File != "" && first.Line > 0:
		where = fmt.Sprintf(", in %s line %d", first.File, first.Line)
	case first.File != "":
		where = ", in " + first.File
	case first.Line > 0:
		where = fmt.Sprintf(", at line %d", first.Line)
	}
	listed := "each listed in details with its item, field and line"
	if n > len(details) {
		listed = fmt.Sprintf("the first %d listed in details", plan.MaxProblems)
	}
	e := core.Errorf(code, "%s found in this preview (%s); nothing was stored. Fix them and preview again. The first%s: %s",
		core.Plural(n, "problem", "problems"), listed, where, first.Message)
	e.Details = details
	return e
}

// placed gives each detail of ds that names an item of doc (by id or
// reference) but no line the line it is about: its field's line, its
// dependency's, else the item's heading.
func placed(doc *plan.Document, ds []core.Detail) {
	for i := range ds {
		d := &ds[i]
		if d.Line != 0 || d.Item == "" {
			continue
		}
		id := d.Item
		if r := core.Reference(d.Item); strings.Contains(d.Item, "/") {
			if r.Document() != doc.ID {
				continue
			}
			id = refItem(r)
		}
		k := slices.IndexFunc(doc.Items, func(it plan.Item) bool { return it.ID == id })
		if k < 0 {
			continue
		}
		it := doc.Items[k]
		d.Line = it.Line
		switch d.Field {
		case "depends_on", "blocks":
			for _, l := range slices.Concat(it.DependsOn, it.Blocks) {
				if l.Line > 0 && (l.Target == d.Key || strings.Contains(d.Message, l.Target)) {
					d.Line = l.Line
					break
				}
			}
		default:
			if n := fieldLine(it.Fields, d.Field); n > 0 {
				d.Line = n
			}
		}
	}
}

// fieldLine is the line that set field key of f (0 when none).
func fieldLine(f plan.Fields, key string) int {
	switch key {
	case core.FieldLabels:
		return f.Labels.Line
	case core.FieldPriority:
		return f.Priority.Line
	case core.FieldAssignee:
		return f.Assignee.Line
	case core.FieldEstimate:
		return f.Estimate.Line
	case core.FieldComponents:
		return f.Components.Line
	case core.FieldFixVersions:
		return f.FixVersions.Line
	case core.FieldDue:
		return f.Due.Line
	case "sprint":
		return f.Sprint.Line
	}
	if name, ok := strings.CutPrefix(key, core.FieldCustomPrefix); ok {
		return f.Custom[name].Line
	}
	return 0
}
