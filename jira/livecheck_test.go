package jira

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestLiveCheckAgainstTheFake: the live check's plan writes nothing; its
// run creates exactly the planned issues (and, where parent is off the
// Story edit screen, edits one) and answers every question as the fake
// models a site — and says which answers the adapter's assumptions need.
func TestLiveCheckAgainstTheFake(t *testing.T) {
	type liveCase struct {
		style, parentNull, sprints string
		offEdit                    bool // parent off the Story edit screen
	}
	cases := []liveCase{
		{jiratest.StyleCompanyManaged, "yes", "not asked", true},
		{jiratest.StyleTeamManaged, "not asked", "yes", false},
	}
	for _, c := range cases {
		t.Run(c.style, func(t *testing.T) {
			f := startJira(t, jiratest.Options{Style: c.style}, nil)
			seed := jiratest.FieldSeed{Users: []jiratest.User{{AccountID: "acc-hid", Email: "hid@example.com", DisplayName: "Hid Den", EmailHidden: true}}}
			if c.offEdit {
				seed.OffEditScreen = []jiratest.ScreenField{{IssueType: "Story", Field: "parent"}}
			}
			if err := f.srv.ApplyFields(seed); err != nil {
				t.Fatal(err)
			}
			w0 := liveWrites(f)
			plan, err := f.p.PlanLiveCheck(f.ctx, LiveCheckOptions{Run: "abc123", HiddenEmail: "hid@example.com"})
			if err != nil {
				t.Fatalf("PlanLiveCheck: %v", err)
			}
			if liveWrites(f) != w0 || len(plan.Creates) != 4 || plan.Style != c.style {
				t.Fatalf("plan: %d writes, %d creates, style %q", liveWrites(f)-w0, len(plan.Creates), plan.Style)
			}
			res, err := f.p.RunLiveCheck(f.ctx, plan)
			if err != nil {
				t.Fatalf("RunLiveCheck: %v", err)
			}
			if len(res.Created) != 4 {
				t.Fatalf("created %v, want 4", res.Created)
			}
			for i, k := range res.Created {
				is, _ := f.srv.Issue(k)
				if is.Reference != plan.Creates[i].Reference || is.Summary != plan.Creates[i].Summary {
					t.Errorf("%s: %q %q, want %+v", k, is.Reference, is.Summary, plan.Creates[i])
				}
			}
			want := map[string]string{
				QuestionSearchToken: "yes", QuestionBulkOrder: "yes", QuestionParentNull: c.parentNull,
				QuestionNestedTasks: "yes", QuestionADFRoundTrip: "yes", QuestionHiddenEmail: "no", QuestionSimpleBoard: c.sprints,
			}
			for _, fd := range res.Findings {
				t.Logf("%s | %s | %s", fd.Question, fd.Answer, fd.Evidence)
				if want[fd.Question] != fd.Answer || fd.Evidence == "" {
					t.Errorf("%s: %q (%s), want %q", fd.Question, fd.Answer, fd.Evidence, want[fd.Question])
				}
				delete(want, fd.Question)
			}
			if len(want) != 0 {
				t.Errorf("questions not answered: %v", want)
			}
			if len(res.Edited) != 0 {
				t.Errorf("edited %v; the fake refuses parent: null off the screen", res.Edited)
			}
			if got := liveWrites(f) - w0; got != 1+len(res.Edited) && !(c.offEdit && got == 2) {
				t.Errorf("%d writes, want the one bulk create (and a refused edit)", got)
			}
		})
	}
}

// TestLiveCheckSeesBulkCreateOutOfOrder: a site answering issues[] newest
// first is reported, with each position's key and reference.
func TestLiveCheckSeesBulkCreateOutOfOrder(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	f.srv.SetBulkCreateReversed(true)
	plan, err := f.p.PlanLiveCheck(f.ctx, LiveCheckOptions{Run: "rev"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.p.RunLiveCheck(f.ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range res.Findings {
		if fd.Question == QuestionBulkOrder && (fd.Answer != "no" || fd.Holds || !strings.Contains(fd.Evidence, "holds s-4")) {
			t.Errorf("bulk order on a reversed site: %+v", fd)
		}
		if fd.Question == QuestionADFRoundTrip && fd.Answer != "yes" {
			t.Errorf("round trip paired by reference, not position: %+v", fd)
		}
	}
}

// liveWrites counts the writes the fake has answered.
func liveWrites(f *fixture) int {
	n := 0
	for _, r := range f.srv.Requests() {
		if jiratest.IsWrite(r.Method, r.Path) {
			n++
		}
	}
	return n
}
