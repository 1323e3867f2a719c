package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/devworkwire/devworkwire/e2e/harness"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// The fields row: the same plan with and without seven fields
// per story (labels, priority, assignee, estimate, components, fix
// version, due date). The fields go into the same bulk creates, so the
// commit costs the same requests; what fields may add is discovery (the
// assignable-user search, the create metadata), bounded per project and
// issue type, never per item.

const benchAssignee = "ana@example.com"

// fieldsSeed is what the seven fields' values need in the fake: the person,
// the component and the version (priorities and the estimate field are the
// default project's).
var fieldsSeed = jiratest.FieldSeed{
	Users:      []jiratest.User{{AccountID: "acc-ana", Email: benchAssignee, DisplayName: "Ana Lima"}},
	Components: []jiratest.Component{{Name: "Web"}},
	Versions:   []jiratest.Version{{Name: "2027.1"}},
}

// FieldsRun is one plan's fresh import and unchanged re-import (the
// fields row's and the Data Center row's).
type FieldsRun struct {
	Preview   Phase `json:"preview"`            // in process, before the commit
	Commit    Phase `json:"commit"`             // the fresh import's commit
	Unchanged Phase `json:"reimport_unchanged"` // a new provider: preview
}

// FieldsResult compares a plan with seven fields per story and without.
type FieldsResult struct {
	Date    string    `json:"date"` // when measured (-only fields: later than the rest)
	Items   int       `json:"items"`
	Fields  int       `json:"fields_per_story"`
	Without FieldsRun `json:"without_fields"`
	With    FieldsRun `json:"with_fields"`
}

// fieldsRuns imports the n-item plan without and with fields, each into its
// own fresh mockjira holding fieldsSeed.
func (b *bench) fieldsRuns(ctx context.Context, n int) (*FieldsResult, error) {
	dir, err := b.dirFor(fmt.Sprintf("fields-%d", n))
	if err != nil {
		return nil, err
	}
	fr := &FieldsResult{Date: stamp(), Items: n, Fields: 7}
	for _, run := range []struct {
		name   string
		fields bool
		out    *FieldsRun
	}{{"without fields", false, &fr.Without}, {"with 7 fields per story", true, &fr.With}} {
		logf(b.o, "%d items %s: fresh import, unchanged re-import", n, run.name)
		if err := b.fieldsRun(ctx, filepath.Join(dir, fmt.Sprintf("%t.db", run.fields)), planDoc(n, nil, run.fields), n, run.out); err != nil {
			return nil, fmt.Errorf("%s: %w", run.name, err)
		}
	}
	return fr, nil
}

func (b *bench) fieldsRun(ctx context.Context, storePath string, doc []byte, n int, out *FieldsRun) error {
	mj, err := b.startJira(ctx)
	if err != nil {
		return err
	}
	defer stopJira(mj)
	if err := mj.SetFields(ctx, fieldsSeed); err != nil {
		return err
	}
	return b.importTwice(ctx, mj, storePath, doc, n, out)
}

// freshImport imports the n-item doc into mj afresh, in process: its
// preview, and its commit (with its counts), which must create n items.
func (b *bench) freshImport(ctx context.Context, mj *harness.MockJira, storePath string, doc []byte, n int) (pre, com Phase, err error) {
	pre, com, counts, err := b.importOnce(ctx, mj, storePath, "bench.md", doc, false)
	if err != nil {
		return Phase{}, Phase{}, err
	}
	if counts.Created != n {
		return Phase{}, Phase{}, fmt.Errorf("fresh import created %d of %d items", counts.Created, n)
	}
	com.Counts = counts
	return pre, com, nil
}

// importTwice imports the n-item doc into mj afresh, then re-imports it
// unchanged through a new provider, which must write nothing.
func (b *bench) importTwice(ctx context.Context, mj *harness.MockJira, storePath string, doc []byte, n int, out *FieldsRun) error {
	var err error
	if out.Preview, out.Commit, err = b.freshImport(ctx, mj, storePath, doc, n); err != nil {
		return err
	}
	pre, _, counts, err := b.importOnce(ctx, mj, storePath, "bench.md", doc, true)
	if err != nil {
		return err
	}
	out.Unchanged = pre
	out.Unchanged.Counts = counts
	if pre.Writes != 0 {
		return fmt.Errorf("re-import with nothing changed wrote %d requests to Jira", pre.Writes)
	}
	return nil
}

// fieldsTargets: commit requests equal, at most 5 discovery requests more
// in all (preview + commit), the unchanged re-import at most 5 more.
func fieldsTargets(r *Results) []Target {
	f := r.Fields
	if f == nil {
		return nil
	}
	name := fmt.Sprintf("%s-item plan with seven fields per item", thousands(f.Items))
	w, wo := f.With, f.Without
	extra := w.Preview.Requests + w.Commit.Requests - wo.Preview.Requests - wo.Commit.Requests
	reimport := w.Unchanged.Requests - wo.Unchanged.Requests
	return []Target{
		{Name: name + ": commit", Goal: "commit requests = without fields; preview + commit ≤ without fields + 5 (discovery)",
			Measured: fmt.Sprintf("commit %d requests (%d bulk creates), without fields %d (%d); preview %d, without %d (%+d in all)",
				w.Commit.Requests, w.Commit.ByEndpoint["POST /rest/api/3/issue/bulk"], wo.Commit.Requests, wo.Commit.ByEndpoint["POST /rest/api/3/issue/bulk"], w.Preview.Requests, wo.Preview.Requests, extra),
			Status: status(w.Commit.Requests == wo.Commit.Requests && extra <= 5)},
		{Name: name + ": unchanged re-import", Goal: "≤ without fields + 5 requests, 0 writes",
			Measured: fmt.Sprintf("%d requests, without fields %d (%+d), %d writes", w.Unchanged.Requests, wo.Unchanged.Requests, reimport, w.Unchanged.Writes),
			Status:   status(reimport <= 5 && w.Unchanged.Writes == 0)},
	}
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fieldsMarkdown(r *Results) string {
	f := r.Fields
	if f == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Fields\n\nThe %s-item plan of the sizes above, once as it is and once with %d field lines under every story's heading (`Labels`, `Priority`, `Assignee` by e-mail, `Estimate`, `Components`, `Fix versions`, `Due`), each into its own fresh mockjira that knows the person, the component and the version; in process as above: preview, commit, then a new provider's unchanged re-import. Measured %s.\n\n", thousands(f.Items), f.Fields, f.Date)
	b.WriteString("| Plan | Preview requests | Commit requests | Commit wall (ms) | Unchanged re-import requests | Preview requests by endpoint | Commit requests by endpoint | Re-import requests by endpoint |\n|---|---:|---:|---:|---:|---|---|---|\n")
	for _, row := range []struct {
		name string
		run  FieldsRun
	}{{"without fields", f.Without}, {fmt.Sprintf("%d fields per story", f.Fields), f.With}} {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d | %s | %s | %s |\n", row.name, row.run.Preview.Requests, row.run.Commit.Requests, f1(row.run.Commit.WallMS), row.run.Unchanged.Requests,
			endpoints(row.run.Preview.ByEndpoint), endpoints(row.run.Commit.ByEndpoint), endpoints(row.run.Unchanged.ByEndpoint))
	}
	b.WriteString("\n")
	return b.String()
}
