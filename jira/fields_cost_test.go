package jira

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// fieldsDoc1000 is a 1,000-item plan (20 epics × 49 stories + 20 more
// stories), each story with seven fields when withFields is set.
func fieldsDoc1000(withFields bool) string {
	var b strings.Builder
	b.WriteString("---\nid: cost\n---\n# Cost\n\n")
	n := 0
	for e := 1; e <= 20; e++ {
		fmt.Fprintf(&b, "## Epic e-%d: Epic %d\n\nEpic text.\n\n", e, e)
		for s := 0; s < 49; s++ {
			n++
			fmt.Fprintf(&b, "### Story s-%d: Story %d\n", n, n)
			if withFields {
				fmt.Fprintf(&b, "Labels: l%d\nPriority: High\nAssignee: ana@example.com\nEstimate: %d\nComponents: Web\nFix versions: 2027.1\nDue: 2027-03-%02d\n", n%7, n%13, 1+n%28)
			}
			b.WriteString("\nStory text.\n\n")
		}
	}
	return b.String()
}

// importCost previews and commits a document through the service over
// the adapter and a fresh fake, and returns the Jira requests each took
// and the bulk creates of the commit.
func importCost(t *testing.T, doc string) (preview, commit, creates, again int) {
	t.Helper()
	srv := jiratest.Start(t, jiratest.Options{})
	if err := srv.ApplyFields(jiratest.FieldSeed{
		Users:      []jiratest.User{{AccountID: "acc-ana", Email: "ana@example.com", DisplayName: "Ana Lima"}},
		Components: []jiratest.Component{{Name: "Web"}},
		Versions:   []jiratest.Version{{Name: "2027.1"}},
	}); err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{BaseURL: srv.URL, Email: srv.Email(), Token: srv.Token(), Project: srv.ProjectKey()})
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(p, service.ServiceOptions{})
	ctx := context.Background()
	pv, err := svc.ImportPreview(ctx, service.ImportPreviewInput{Path: "cost.md", Data: []byte(doc)})
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	preview = len(srv.Requests())
	srv.ClearRequests()
	res, err := svc.ImportCommit(ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	if err != nil || res.Counts.Created != 1000 {
		t.Fatalf("commit: %v %+v", err, res.Counts)
	}
	commit, creates = len(srv.Requests()), srv.CountRequests("POST", "/rest/api/3/issue/bulk")
	// The unchanged re-import, in a new process (a new Provider).
	p2, err := New(Config{BaseURL: srv.URL, Email: srv.Email(), Token: srv.Token(), Project: srv.ProjectKey()})
	if err != nil {
		t.Fatal(err)
	}
	srv.ClearRequests()
	svc2 := newService(p2, service.ServiceOptions{})
	if pv, err := svc2.ImportPreview(ctx, service.ImportPreviewInput{Path: "cost.md", Data: []byte(doc)}); err != nil || pv.Counts.Unchanged != 1000 {
		t.Fatalf("re-preview: %v %+v", err, pv.Counts)
	}
	return preview, commit, creates, len(srv.Requests())
}

// TestFieldsCost1000: seven fields per item cost the plan's commit no
// request (they go into the same bulk creates), and the preview at most 5
// discovery requests more (here one: the assignable-user search for the
// one person; the field list and create metadata are read anyway).
func TestFieldsCost1000(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 items")
	}
	p0, c0, b0, u0 := importCost(t, fieldsDoc1000(false))
	p1, c1, b1, u1 := importCost(t, fieldsDoc1000(true))
	t.Logf("without fields: preview %d, commit %d requests (%d bulk creates), unchanged re-import %d; with 7 fields per story: preview %d, commit %d (%d), unchanged re-import %d", p0, c0, b0, u0, p1, c1, b1, u1)
	if b1 != b0 || c1 != c0 {
		t.Errorf("commit with fields: %d requests (%d bulk creates); without: %d (%d); want equal", c1, b1, c0, b0)
	}
	if extra := p1 + c1 - p0 - c0; extra > 5 {
		t.Errorf("fields cost %d more requests in all; want at most 5 discovery requests", extra)
	}
	if extra := u1 - u0; extra > 5 {
		t.Errorf("the unchanged re-import with fields costs %d more requests; want at most 5", extra)
	}
}

// TestRankLongRunOverHTTP: a fresh 1,000-story import with rank on, through
// the adapter and the fake Jira, places its 999 moves in two rounds (issue
// 20): 20 rank requests, the fewest there can be (1 for the first chunk
// and the other 19 chunks' heads + 19 chunks), and the backlog ends in the
// document's order.
func TestRankLongRunOverHTTP(t *testing.T) {
	srv := jiratest.Start(t, jiratest.Options{})
	p, err := New(Config{BaseURL: srv.URL, Email: srv.Email(), Token: srv.Token(), Project: srv.ProjectKey()})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("---\nid: order\n---\n")
	var want []string
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "### Story s-%d: Story %d\n\n", i, i)
		want = append(want, fmt.Sprintf("Story %d", i))
	}
	svc := newService(p, service.ServiceOptions{Rank: true})
	ctx := context.Background()
	pv, err := svc.ImportPreview(ctx, service.ImportPreviewInput{Path: "order.md", Data: []byte(b.String())})
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	srv.ClearRequests()
	res, err := svc.ImportCommit(ctx, service.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	if err != nil || res.Counts.Created != 1000 || res.Counts.Ranked != 999 {
		t.Fatalf("commit: %v %+v", err, res.Counts)
	}
	if n := srv.CountRequests("PUT", "/rest/agile/1.0/issue/rank"); n != 20 {
		t.Errorf("rank requests: %d; want 20", n)
	}
	summary := map[string]string{}
	for _, iss := range srv.Issues() {
		summary[iss.Key] = iss.Summary
	}
	var got []string
	for _, k := range srv.Backlog(srv.ProjectKey()) {
		got = append(got, summary[k])
	}
	if !slices.Equal(got, want) {
		t.Errorf("backlog is not the document's order")
	}
}
