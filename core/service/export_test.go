package service_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// personBacklog builds, as people would, a backlog of 200 issues: 10
// epics with 13 stories each and a sub-task under every second story (60);
// each story depends on the one before it in its epic, stories carry
// labels and a priority, some are in the active sprint, descriptions have
// lists and code, criteria a checklist.
func personBacklog(e *env) (total int) {
	e.t.Helper()
	e.p.AddSprint("Sprint 7", core.SprintActive, "Board")
	for ei := 1; ei <= 10; ei++ {
		epic := e.p.AddAsPerson(core.WorkItem{Kind: core.KindEpic, Title: fmt.Sprintf("Epic %d", ei), Description: "Goal of epic " + fmt.Sprint(ei) + ".\n\n- one\n- two"})
		prev := ""
		for si := 1; si <= 13; si++ {
			st := e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: fmt.Sprintf("Story %d.%d", ei, si), ParentKey: epic,
				Description: "As a user I want " + fmt.Sprint(si) + ".\n\n```go\nfmt.Println(1)\n```", AcceptanceCriteria: []string{"[ ] it works", "[x] it is tested"}})
			if err := e.p.SetField(st, core.FieldLabels, []string{"team-" + fmt.Sprint(ei%3)}); err != nil {
				e.t.Fatal(err)
			}
			if err := e.p.SetField(st, core.FieldPriority, []string{"High"}); err != nil {
				e.t.Fatal(err)
			}
			if prev != "" {
				if err := e.p.Link(st, prev); err != nil {
					e.t.Fatal(err)
				}
			}
			prev = st
			if si%2 == 0 {
				e.p.AddAsPerson(core.WorkItem{Kind: core.KindSubtask, Title: fmt.Sprintf("Task %d.%d", ei, si), ParentKey: st})
			}
			if si == 1 {
				if err := e.p.MoveToSprint(e.ctx, "1", []string{st}); err != nil {
					e.t.Fatal(err)
				}
			}
		}
	}
	return len(e.p.Items())
}

// Export → import is adopt only: the document written from a 200-issue
// backlog (links, sub-tasks, fields, sprint) imports with zero creates,
// every row an adopt and no structure change, and the commit writes only
// the references; a second import is unchanged. YAML too.
func TestExportThenImportAdoptsOnly(t *testing.T) {
	for _, format := range []string{plan.FormatMarkdown, plan.FormatYAML} {
		t.Run(format, func(t *testing.T) {
			e := newEnv(t)
			n := personBacklog(e)
			if n != 200 {
				t.Fatalf("backlog of %d issues", n)
			}
			before := e.p.Writes()
			res, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Format: format})
			if err != nil {
				t.Fatal(err)
			}
			if e.p.Writes() != before {
				t.Fatal("the export wrote")
			}
			if res.Epics != 10 || res.Stories != 130 || res.Subtasks != 60 || res.Adopt != 200 || res.Document != "demo" || len(res.Warnings) != 0 {
				t.Fatalf("export %+v", res)
			}
			name := "plan.md"
			if format == plan.FormatYAML {
				name = "plan.yaml"
			}
			pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: name, Data: []byte(res.Text)})
			if err != nil {
				t.Fatalf("import of the export: %v\n%s", err, res.Text)
			}
			if pre.Counts.Create != 0 || pre.Counts.Adopt != 200 || pre.Counts.Update != 0 {
				t.Fatalf("preview counts %+v", pre.Counts)
			}
			for _, it := range pre.Items {
				if len(it.Changes) > 0 || len(it.ChangedFields) > 0 {
					t.Errorf("%s (%s) changes %v %v; an export adopts as it is", it.Reference, it.Key, it.ChangedFields, it.Changes)
					break
				}
			}
			var structure []string
			for _, c := range pre.Structure {
				if format == plan.FormatMarkdown || c.Action != string(service.ActionRank) {
					structure = append(structure, c.Message)
				}
			}
			if len(structure) > 0 {
				t.Errorf("structure changes %v; the export keeps links and sprint (and in Markdown the backlog order)", structure[:min(5, len(structure))])
			}
			res2 := e.commit(pre.PreviewHandle, "")
			if res2.Counts.Adopted != 200 || res2.Counts.Created != 0 || len(e.p.Items()) != 200 {
				t.Errorf("commit %+v, %d issues", res2.Counts, len(e.p.Items()))
			}
			if len(e.byRef()) != 200 {
				t.Errorf("%d issues carry a reference, want 200", len(e.byRef()))
			}
			again, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: name, Data: []byte(res.Text)})
			if err != nil || again.Counts.Unchanged != 200 {
				t.Errorf("re-import: %+v, %v", again.Counts, err)
			}
			// Exported again: the document's own ids, from the references.
			re, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Format: format})
			if err != nil || re.Text != res.Text || re.Adopt != 0 {
				t.Errorf("a second export differs (adopt %d, %v)", re.Adopt, err)
			}
		})
	}
}

// An epic's export holds it, its stories and their sub-tasks; a query's
// adds the parents outside it; a selection is one of the three; an issue
// of another document is left out with a warning.
func TestExportSelections(t *testing.T) {
	e := newEnv(t)
	backlog(e) // DEMO-1 epic, DEMO-2 story (sub-task DEMO-3), DEMO-4 loose, DEMO-5 epic
	res, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Epic: "DEMO-1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "## Epic demo-1: Checkout (old)\nKey: DEMO-1\n\nWhat the team wrote.\n\n### Story demo-2: Pay\nKey: DEMO-2\n\nPay by card.\n\n#### Sub-task demo-3: Wire the API\nKey: DEMO-3\n"
	if res.Document != "demo-1" || !strings.HasSuffix(res.Text, want) || res.Epics != 1 || res.Stories != 1 || res.Subtasks != 1 {
		t.Errorf("epic export %+v:\n%s", res, res.Text)
	}
	if !strings.HasPrefix(res.Text, "---\n# Exported from ") {
		t.Errorf("no header comment:\n%s", res.Text)
	}
	q, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Query: "DEMO-3"}, Document: "pay"})
	if err != nil || q.Document != "pay" || q.Epics != 1 || q.Stories != 1 || q.Subtasks != 1 || len(q.Warnings) != 1 || !strings.Contains(q.Warnings[0], "Added 2 parents of exported issues from outside the selection, so that no item loses its epic or story: DEMO-2, DEMO-1.") {
		t.Errorf("query export %+v, %v", q, err)
	}
	for _, in := range []service.ExportInput{
		{},
		{IssueSelection: core.IssueSelection{Epic: "DEMO-1", Project: "DEMO"}},
		{IssueSelection: core.IssueSelection{Project: "DEMO"}, Format: "toml"},
		{IssueSelection: core.IssueSelection{Project: "DEMO"}, Document: "bad id"},
		{IssueSelection: core.IssueSelection{Project: "OTHER"}},
	} {
		_, err := e.svc.Export(e.ctx, in)
		wantErr(t, err, core.CodeValidationFailed)
	}
	_, err = e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Epic: "DEMO-4"}})
	wantErr(t, err, core.CodeWorkItemNotFound)
	_, err = e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Query: "DEMO-77"}})
	wantErr(t, err, core.CodeWorkItemNotFound, "nothing to export")

	if err := e.p.SetReference("DEMO-4", "other/x-1"); err != nil {
		t.Fatal(err)
	}
	all, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}})
	if err != nil || all.Document != "other" {
		t.Fatalf("export: %+v, %v", all, err)
	}
	mixed, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Document: "shop"})
	if err != nil || strings.Contains(mixed.Text, "DEMO-4") || len(mixed.Warnings) != 1 || !strings.Contains(mixed.Warnings[0], "1 issue already belongs to other documents, so it is not exported into shop: other (DEMO-4).") {
		t.Errorf("another document's issue: %+v, %v", mixed, err)
	}
}

// A description holding lines the Markdown form reads as structure (a
// level-2 heading, an item heading) is written escaped and reads back as
// itself: no warning, no item more; YAML keeps it as it is.
func TestExportWritesDescriptionsTheFormatReadsAsText(t *testing.T) {
	e := newEnv(t)
	desc := "Intro.\n\n## Details\nMore.\n\n### Story s-99: planted"
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Notes", Description: desc})
	md, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}})
	if err != nil || len(md.Warnings) != 0 || !strings.Contains(md.Text, "\n ## Details\n") {
		t.Errorf("Markdown: %+v, %v\n%s", md.Warnings, err, md.Text)
	}
	if back, err := (plan.Options{}).Parse("export.md", []byte(md.Text)); err != nil || len(back.Items) != 1 || back.Items[0].Description != desc {
		t.Errorf("the export reads back as %+v, %v", back, err)
	}
	y, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Format: plan.FormatYAML})
	if err != nil || len(y.Warnings) != 0 {
		t.Errorf("YAML: %+v, %v", y.Warnings, err)
	}
}

// People are exported readably and so that the document imports back
// without a change: as the configuration names them (FieldOptions.People),
// else by the e-mail the tracker shows, else by the account id — in the
// assignee and in a user custom field alike. The export's import preview
// adopts both issues with no change; an account the tracker shows no
// e-mail for still resolves.
func TestExportWritesPeopleAsTheImportReadsThem(t *testing.T) {
	for _, format := range []string{plan.FormatMarkdown, plan.FormatYAML} {
		t.Run(format, func(t *testing.T) {
			e := newEnv(t)
			e.p.SetFieldMeta(fakeprovider.FieldMeta{
				Users:  map[string][]string{"ana@example.com": {"acc-ana"}, "bo@example.com": {"acc-bo"}, "Bo": {"acc-bo"}, "Cy Ray": {"acc-cy"}},
				Custom: map[string][]string{"fields.Reviewer": nil}, Types: map[string]string{"fields.Reviewer": "user"},
			})
			e.svc = e.serviceWith(service.ServiceOptions{Fields: service.FieldOptions{Custom: []string{"Reviewer"}, People: map[string]string{"acc-bo": "Bo"}}})
			set := func(key, field, acc string) {
				if err := e.p.SetField(key, field, []string{acc}); err != nil {
					t.Fatal(err)
				}
			}
			s1 := e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Pay"})
			set(s1, core.FieldAssignee, "acc-ana")
			set(s1, "fields.Reviewer", "acc-bo")
			s2 := e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Ship"})
			set(s2, core.FieldAssignee, "acc-cy")
			set(s2, "fields.Reviewer", "acc-ana")
			res, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Format: format})
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ToLower(res.Text)
			for _, want := range []string{"assignee: ana@example.com", "reviewer: bo\n", "assignee: acc-cy", "reviewer: ana@example.com"} {
				if !strings.Contains(text, want) {
					t.Errorf("the export lacks %q:\n%s", want, res.Text)
				}
			}
			if strings.Contains(text, "acc-ana") || strings.Contains(text, "acc-bo") {
				t.Errorf("the export writes an account id where the person has a name or a visible e-mail:\n%s", res.Text)
			}
			name := map[string]string{plan.FormatMarkdown: "plan.md", plan.FormatYAML: "plan.yaml"}[format]
			pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: name, Data: []byte(res.Text)})
			if err != nil {
				t.Fatalf("import of the export: %v\n%s", err, res.Text)
			}
			if pre.Counts != (service.Counts{Adopt: 2}) || len(pre.Warnings) != 0 {
				t.Errorf("import preview of the export: %+v %q; want 2 adopts and nothing else", pre.Counts, pre.Warnings)
			}
			for _, it := range pre.Items {
				if len(it.Changes) > 0 || len(it.ChangedFields) > 0 {
					t.Errorf("%s changes %v %+v; an export imports back unchanged", it.Key, it.ChangedFields, it.Changes)
				}
			}
			// A tracker that will not show people: account ids, a warning.
			e.p.FailCall(fakeprovider.OpPeople, 1, core.Errorf(core.CodeJiraPermissionDenied, "not allowed"))
			res, err = e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Format: format})
			if err != nil || !strings.Contains(strings.ToLower(res.Text), "assignee: acc-ana") || !strings.Contains(strings.ToLower(res.Text), "reviewer: bo\n") ||
				len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "People are written as account ids") {
				t.Errorf("people not readable: %v, warnings %q\n%s", err, res.Warnings, res.Text)
			}
		})
	}
}

// The service itself trims the document id and takes the format's short
// names (md, yml; any case), so every front door behaves alike; a blank
// id is the default one, a bad id or format is refused naming the field.
func TestExportTrimsTheIDAndTakesFormatNames(t *testing.T) {
	e := newEnv(t)
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Pay"})
	sel := core.IssueSelection{Project: "DEMO"}
	for _, c := range []struct{ format, id, wantFormat, wantID string }{
		{" YML ", " shop ", plan.FormatYAML, "shop"},
		{"md", "\tshop\n", plan.FormatMarkdown, "shop"},
		{"Markdown", "  ", plan.FormatMarkdown, "demo"},
	} {
		res, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: sel, Format: c.format, Document: c.id})
		if err != nil || res.Format != c.wantFormat || res.Document != c.wantID {
			t.Errorf("format %q id %q: %s %s, %v; want %s %s", c.format, c.id, res.Format, res.Document, err, c.wantFormat, c.wantID)
		}
	}
	for field, in := range map[string]service.ExportInput{"format": {IssueSelection: sel, Format: "json"}, "document": {IssueSelection: sel, Document: " not an id "}} {
		_, err := e.svc.Export(e.ctx, in)
		if ce := core.AsError(err); ce == nil || ce.Code != core.CodeValidationFailed || len(ce.Details) != 1 || ce.Details[0].Field != field {
			t.Errorf("%+v: %v; want VALIDATION_FAILED on %s", in, err, field)
		}
	}
}

// The export compares the items it reads back with those it exported: a
// description the escape cannot carry (a heading already indented three
// spaces) is named in a warning.
func TestExportChecksTheItemsItReadsBack(t *testing.T) {
	e := newEnv(t)
	key := e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Notes", Description: "Intro.\n\n   ## Story s-99: indented"})
	md, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}})
	if err != nil || len(md.Warnings) != 1 || !strings.Contains(md.Warnings[0], "1 item does not read back exactly as exported") || !strings.HasSuffix(md.Warnings[0], ": "+key+".") {
		t.Errorf("Markdown: %+v, %v", md.Warnings, err)
	}
}

// Each kind of export warning is one line naming at most MaxWarningKeys
// issues with the count of all, whatever the size of the selection
// (warnings_truncated says so); AllWarnings names every one.
func TestExportWarningsAreOnePerKindAndBounded(t *testing.T) {
	e := newEnv(t)
	story := e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Owned"})
	if err := e.p.SetReference(story, "shop/s-1"); err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for i := range 40 {
		tasks = append(tasks, e.p.AddAsPerson(core.WorkItem{Kind: core.KindSubtask, Title: fmt.Sprintf("Task %d", i), ParentKey: story}))
		e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: fmt.Sprintf("Notes %d", i), Description: "Intro.\n\n   ## Story s-99: indented"})
	}
	res, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Document: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 3 || !res.WarningsTruncated {
		t.Fatalf("%d warnings (truncated %v), want 3, truncated:\n%s", len(res.Warnings), res.WarningsTruncated, strings.Join(res.Warnings, "\n"))
	}
	orphans := "40 sub-tasks have no story in the document, so they are not exported: " + strings.Join(tasks[:service.MaxWarningKeys], ", ") + ", … 35 more."
	if !slices.Contains(res.Warnings, orphans) {
		t.Errorf("no warning %q:\n%s", orphans, strings.Join(res.Warnings, "\n"))
	}
	for _, w := range res.Warnings {
		if n := strings.Count(w, "DEMO-"); n > service.MaxWarningKeys {
			t.Errorf("a warning names %d issues, more than %d: %s", n, service.MaxWarningKeys, w)
		}
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "40 items do not read back exactly as exported") {
		t.Errorf("the read-back warning does not count all 40:\n%s", strings.Join(res.Warnings, "\n"))
	}

	all, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}, Document: "plan", AllWarnings: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "40 sub-tasks have no story in the document, so they are not exported: " + strings.Join(tasks, ", ") + "."
	if len(all.Warnings) != 3 || all.WarningsTruncated || !slices.Contains(all.Warnings, want) {
		t.Errorf("AllWarnings: truncated %v, warnings:\n%s", all.WarningsTruncated, strings.Join(all.Warnings, "\n"))
	}
}

// A sub-task is exported without a Sprint line: it is in its story's
// sprint, and the format ignores a sub-task's own line.
func TestExportWritesNoSprintOnSubtasks(t *testing.T) {
	e := newEnv(t)
	story := e.p.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Pay"})
	e.p.AddAsPerson(core.WorkItem{Kind: core.KindSubtask, Title: "Wire the API", ParentKey: story})
	if err := e.p.MoveToSprint(e.ctx, "1", []string{story}); err != nil { // its sub-task follows
		t.Fatal(err)
	}
	res, err := e.svc.Export(e.ctx, service.ExportInput{IssueSelection: core.IssueSelection{Project: "DEMO"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Text, "\nSprint: "); n != 1 || !strings.Contains(res.Text, "Key: "+story+"\nSprint: ") {
		t.Errorf("%d Sprint lines, want one, on the story:\n%s", n, res.Text)
	}
}
