package jira

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/memstore"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestRankLongRunOverHTTP: a fresh 1,000-story import with rank on, through
// the adapter and the fake Jira, places its 999 moves in two rounds (issue
// 20): 21 rank requests (1 for the 20 chunks' heads + 20 chunks), and the
// backlog ends in the document's order.
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
	svc := core.NewWorkItemService(core.ServiceOptions{Provider: p, Store: memstore.New(memstore.Options{}), Rank: true})
	ctx := context.Background()
	pv, err := svc.ImportPreview(ctx, core.ImportPreviewInput{Path: "order.md", Data: []byte(b.String())})
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	srv.ClearRequests()
	res, err := svc.ImportCommit(ctx, core.CommitInput{PreviewHandle: pv.PreviewHandle, Confirmed: true, IdempotencyKey: "k"})
	if err != nil || res.Counts.Created != 1000 || res.Counts.Ranked != 999 {
		t.Fatalf("commit: %v %+v", err, res.Counts)
	}
	if n := srv.CountRequests("PUT", "/rest/agile/1.0/issue/rank"); n != 21 {
		t.Errorf("rank requests: %d; want 21", n)
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
