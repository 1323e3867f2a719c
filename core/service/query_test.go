package service_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

func TestGetIsSelfSufficient(t *testing.T) {
	e := checkoutEnv(t)
	items := e.byRef()
	e.p.ForbidWrites(t)

	res, err := e.svc.Get(e.ctx, service.GetInput{Item: "checkout/s-1"})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Item
	if res.ResultType != service.ResultPreview || res.RunID == "" || v.Key != items["checkout/s-1"].Key || v.Title != "Pay without an account" ||
		v.Description != "Story Pay without an account." || !slices.Equal(v.AcceptanceCriteria, []string{"It works", "It is tested"}) ||
		v.Status != core.StatusTodo || v.StatusName != "To Do" || v.URL == "" || v.Updated.IsZero() {
		t.Errorf("item %+v", v)
	}
	if v.Epic == nil || v.Epic.Key != items["checkout/e-1"].Key || v.Epic.Title != "Guest checkout" {
		t.Errorf("epic %+v", v.Epic)
	}

	res, err = e.svc.Get(e.ctx, service.GetInput{Item: items["checkout/e-1"].Key})
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, c := range res.Item.Children {
		kids = append(kids, string(c.Reference)+":"+c.Title)
	}
	if !slices.Equal(kids, []string{"checkout/s-1:Pay without an account", "checkout/s-2:Save address"}) || res.Item.Epic != nil {
		t.Errorf("children %v", kids)
	}

	_, err = e.svc.Get(e.ctx, service.GetInput{Item: "DEMO-4242"})
	wantErr(t, err, core.CodeWorkItemNotFound, "DEMO-4242")
	_, err = e.svc.Get(e.ctx, service.GetInput{Item: "checkout/nope"})
	wantErr(t, err, core.CodeWorkItemNotFound, "checkout/nope")
}

func TestQuery(t *testing.T) {
	e := newEnv(t)
	e.importDoc(bigDoc("q", 1, 30)) // 1 epic + 30 stories
	items := e.byRef()
	blocked, blocker := items["q/s-1-1"].Key, items["q/s-1-2"].Key
	_ = e.p.Link(blocked, blocker)
	_ = e.p.SetStatus(items["q/s-1-3"].Key, core.StatusDone)
	e.p.ForbidWrites(t)
	writes := e.p.Writes()

	res, err := e.svc.Query(e.ctx, service.QueryInput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResultType != service.ResultPreview || res.Returned != core.DefaultQueryLimit || len(res.Items) != 25 || !res.Truncated {
		t.Errorf("default query: returned %d truncated %v", res.Returned, res.Truncated)
	}
	for _, v := range res.Items[1:] {
		if v.Epic == nil || v.Epic.Title != "Epic number e-1" || len(v.AcceptanceCriteria) != 2 || v.Status == "" {
			t.Fatalf("query item not self-sufficient: %+v", v)
		}
	}

	res, err = e.svc.Query(e.ctx, service.QueryInput{Epic: "q/e-1", Limit: 100})
	if err != nil || res.Returned != 30 || res.Truncated {
		t.Errorf("by epic reference: %d %v %v", res.Returned, res.Truncated, err)
	}
	res, err = e.svc.Query(e.ctx, service.QueryInput{Status: core.StatusDone})
	if err != nil || res.Returned != 1 || res.Items[0].Key != items["q/s-1-3"].Key {
		t.Errorf("by status: %+v %v", res.Items, err)
	}
	res, err = e.svc.Query(e.ctx, service.QueryInput{Ready: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Items {
		if v.Key == blocked || v.Status != core.StatusTodo {
			t.Errorf("ready returned %s (%s)", v.Key, v.Status)
		}
	}
	for _, v := range res.Items {
		if v.Kind != core.KindStory {
			t.Errorf("ready returned %s, a %s: epics are not ready work", v.Key, v.Kind)
		}
	}
	if res.Returned != 30-2 {
		t.Errorf("ready returned %d; want 28 (30 stories minus the blocked and the done; the epic is not ready work)", res.Returned)
	}
	res, err = e.svc.Query(e.ctx, service.QueryInput{Ready: true, Kind: core.KindEpic})
	if err != nil || res.Returned != 1 || res.Items[0].Key != items["q/e-1"].Key {
		t.Errorf("ready epics on request: %+v %v", res.Items, err)
	}
	res, err = e.svc.Query(e.ctx, service.QueryInput{Kind: core.KindEpic, Limit: 100})
	if err != nil || res.Returned != 1 || res.Items[0].Kind != core.KindEpic {
		t.Errorf("by kind epic: %+v %v", res.Items, err)
	}
	res, err = e.svc.Query(e.ctx, service.QueryInput{Text: "s-1-17", Document: "q"})
	if err != nil || res.Returned != 1 {
		t.Errorf("by text: %d %v", res.Returned, err)
	}

	for _, tc := range []struct {
		in    service.QueryInput
		code  core.Code
		frags []string
	}{
		{service.QueryInput{Status: "open"}, core.CodeValidationFailed, []string{`"open"`, "todo, in_progress or done"}},
		{service.QueryInput{Limit: 101}, core.CodeValidationFailed, []string{"101", "1 to 100"}},
		{service.QueryInput{Kind: "task"}, core.CodeValidationFailed, []string{`"task"`, "epic, story or subtask"}},
		{service.QueryInput{Kind: "sub-task"}, core.CodeValidationFailed, []string{`"sub-task" is not a kind (did you mean subtask?)`}},
		{service.QueryInput{Status: "in-progress"}, core.CodeValidationFailed, []string{`"in-progress" is not a status (did you mean in_progress?)`}},
		{service.QueryInput{Limit: -1}, core.CodeValidationFailed, []string{"-1"}},
		{service.QueryInput{Ready: true, Status: core.StatusDone}, core.CodeValidationFailed, []string{"ready"}},
		{service.QueryInput{Epic: "q/s-1-1"}, core.CodeValidationFailed, []string{"not an epic"}},
		{service.QueryInput{Epic: "q/e-9"}, core.CodeWorkItemNotFound, []string{"q/e-9"}},
	} {
		t.Run(fmt.Sprint(tc.in), func(t *testing.T) {
			_, err := e.svc.Query(e.ctx, tc.in)
			wantErr(t, err, tc.code, tc.frags...)
		})
	}
	if e.p.Writes() != writes {
		t.Error("queries wrote")
	}
}
