package jira

import (
	"slices"
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
