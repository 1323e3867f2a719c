package jiratest_test

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// TestBulkCreateProperty: for any mix of valid and invalid elements, bulk
// create creates exactly the valid ones, in order, with sequential keys,
// and reports every invalid one by its 0-based index.
func TestBulkCreateProperty(t *testing.T) {
	c := start(t, jiratest.Options{})
	rapid.Check(t, func(rt *rapid.T) {
		before := len(c.srv.Issues())
		n := rapid.IntRange(1, 12).Draw(rt, "n")
		var ups []any
		var valid []int
		var invalid []int
		for i := 0; i < n; i++ {
			f := issueFields("Task", fmt.Sprintf("T%d", i), fmt.Sprintf("p/t-%d", i))
			switch rapid.IntRange(0, 3).Draw(rt, "defect") {
			case 1:
				f["summary"] = strings.Repeat("x", 256)
			case 2:
				delete(f, "issuetype")
			case 3:
				f["nope"] = 1
			default:
				valid = append(valid, i)
			}
			if len(valid) == 0 || valid[len(valid)-1] != i {
				invalid = append(invalid, i)
			}
			ups = append(ups, map[string]any{"fields": f})
		}
		r := c.do("POST", "/rest/api/3/issue/bulk", map[string]any{"issueUpdates": ups})
		wantStatus := 201
		if len(valid) == 0 {
			wantStatus = 400
		}
		if r.status != wantStatus {
			rt.Fatalf("status %d, want %d: %s", r.status, wantStatus, r.body)
		}
		m := r.json(t)
		created := m["issues"].([]any)
		errs := m["errors"].([]any)
		if len(created) != len(valid) || len(errs) != len(invalid) {
			rt.Fatalf("created %d (want %d), errors %d (want %d)", len(created), len(valid), len(errs), len(invalid))
		}
		for j, e := range errs {
			if got := int(e.(map[string]any)["failedElementNumber"].(float64)); got != invalid[j] {
				rt.Fatalf("error %d: failedElementNumber %d, want %d", j, got, invalid[j])
			}
		}
		for j, ci := range created {
			want := fmt.Sprintf("DEMO-%d", before+j+1)
			if got := ci.(map[string]any)["key"]; got != want {
				rt.Fatalf("created %d: key %v, want %s", j, got, want)
			}
			sn, _ := c.srv.Issue(want)
			if sn.Summary != fmt.Sprintf("T%d", valid[j]) {
				rt.Fatalf("%s has summary %q, want T%d", want, sn.Summary, valid[j])
			}
		}
		if after := len(c.srv.Issues()); after != before+len(valid) {
			rt.Fatalf("issue count %d → %d, want +%d", before, after, len(valid))
		}
	})
}
