package jira

import (
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// Older company-managed projects require an Epic Name on epics: the
// adapter fills it from the summary, so epics can be created there (the
// required field was refused as one DevWorkWire does not fill).
func TestEpicNameIsFilledFromTheSummary(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleCompanyManaged, EpicNameRequired: true}, nil)
	if err := f.p.Check(f.ctx); err != nil {
		t.Fatalf("Check with a required Epic Name: %v", err)
	}
	specs := f.specs("en", 2)
	specs[0].Kind, specs[0].Title = core.KindEpic, "  Guest checkout  "
	out, err := f.p.Create(f.ctx, specs)
	if err != nil || out[0].Err != nil || out[1].Err != nil {
		t.Fatalf("create an epic and a story: %v %+v", err, out)
	}
	epic, _ := f.srv.Issue(out[0].Key)
	story, _ := f.srv.Issue(out[1].Key)
	if got := epic.Fields[jiratest.EpicNameFieldID]; !slices.Equal(got, []string{"Guest checkout"}) {
		t.Errorf("the epic's Epic Name = %q; want the summary", got)
	}
	if _, ok := story.Fields[jiratest.EpicNameFieldID]; ok {
		t.Error("a story got an Epic Name")
	}
	long := make([]rune, 300)
	for i := range long {
		long[i] = 'é'
	}
	if got := []rune(EpicName(string(long))); len(got) != 255 {
		t.Errorf("EpicName of 300 characters has %d", len(got))
	}
}

// TestCreateFillsNamesTheEpicName: the preview's view of what Create fills
// itself — each new epic's Epic Name where the site has it on the epic's
// create screen (the value Create then writes); nothing for stories, and
// nothing, without a request, on a site without the field.
func TestCreateFillsNamesTheEpicName(t *testing.T) {
	f := startJira(t, jiratest.Options{Style: jiratest.StyleCompanyManaged, EpicNameRequired: true}, nil)
	specs := f.specs("fill", 2)
	specs[0].Kind, specs[0].Title = core.KindEpic, "  Guest checkout  "
	fills, err := f.p.CreateFills(f.ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	got := fills[specs[0].Reference]
	if len(fills) != 1 || len(got) != 1 || got[0].Field != "Epic Name" || got[0].Value != "Guest checkout" || !strings.Contains(got[0].Why, "requires") {
		t.Fatalf("fills %+v; want the epic's Epic Name", fills)
	}
	out, err := f.p.Create(f.ctx, specs)
	if err != nil || out[0].Err != nil {
		t.Fatalf("create: %v %+v", err, out)
	}
	if epic, _ := f.srv.Issue(out[0].Key); !slices.Equal(epic.Fields[jiratest.EpicNameFieldID], []string{got[0].Value}) {
		t.Errorf("Create wrote Epic Name %q; the preview said %q", epic.Fields[jiratest.EpicNameFieldID], got[0].Value)
	}

	plain := startJira(t, jiratest.Options{}, nil)
	if err := plain.p.Check(plain.ctx); err != nil {
		t.Fatal(err)
	}
	plain.srv.ClearRequests()
	specs = plain.specs("fill", 1)
	specs[0].Kind = core.KindEpic
	if fills, err := plain.p.CreateFills(plain.ctx, specs); err != nil || len(fills) != 0 || len(plain.srv.Requests()) != 0 {
		t.Errorf("a site without Epic Name: fills %+v, %v, %d requests", fills, err, len(plain.srv.Requests()))
	}
}
