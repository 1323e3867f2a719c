package harness

import "testing"

// TestIsWriteIsTheFakesRule: Request.IsWrite is jiratest.IsWrite, whose
// cases (every endpoint, each checked against what it changed) are in
// jiratest's TestIsWriteMatchesWhatChanges; here only that the suite asks
// that rule, on the POSTs the two used to disagree about.
func TestIsWriteIsTheFakesRule(t *testing.T) {
	if r := (Request{Method: "POST", Path: "/rest/api/3/issue/bulkfetch"}); r.IsWrite() {
		t.Errorf("%s %s: IsWrite = true, want false (a bulk fetch only reads)", r.Method, r.Path)
	}
	if r := (Request{Method: "POST", Path: "/rest/api/3/issue/bulk"}); !r.IsWrite() {
		t.Errorf("%s %s: IsWrite = false, want true (a bulk create writes)", r.Method, r.Path)
	}
}
