package jiratest

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestRefIndexSameResultsAsFullScan checks that the reference-field index
// never changes a search result: every query gives the same keys, in the
// same order, with the index and with a scan of every issue, before and
// after edits that are still inside the search lag, with and without
// reconcileIssues.
func TestRefIndexSameResultsAsFullScan(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(Options{Now: func() time.Time { return now }, SearchLag: time.Minute})
	s.AddProject("OTHER", "")
	for i := 0; i < 40; i++ {
		in := SeedIssue{IssueType: "Story", Summary: fmt.Sprintf("Story %d doc", i), Reference: fmt.Sprintf("doc/s-%d", i)}
		if i%5 == 0 {
			in.Reference = ""
		}
		if i%7 == 0 {
			in.Project = "OTHER"
		}
		if _, err := s.Seed(in); err != nil {
			t.Fatal(err)
		}
	}
	// Edits not yet visible to search: s-3 becomes s-33x, s-4 loses its
	// reference, s-5 (none) gains s-3.
	s.mu.Lock()
	edit := func(num int, ref string) int64 {
		iss := s.issues[num]
		st := iss.cur.clone()
		if ref == "" {
			delete(st.Custom, s.fieldID)
		} else {
			st.Custom[s.fieldID] = ref
		}
		s.setState(iss, st)
		return iss.ID
	}
	edited := []int64{edit(3, "doc/s-33x"), edit(4, ""), edit(5, "doc/s-3")}
	s.mu.Unlock()

	queries := []string{
		`project = DEMO AND cf[10050] ~ "\"doc/s-3\""`,
		`project = DEMO AND (cf[10050] ~ "\"doc/s-3\"" OR cf[10050] ~ "\"doc/s-4\"" OR cf[10050] ~ "\"doc/s-33x\"")`,
		`cf[10050] ~ "\"doc/s-7\"" OR cf[10050] ~ "\"doc/s-14\""`,
		`cf[10050] ~ "doc s-1*"`,
		`cf[10050] ~ "s-1*"`,
		`cf[10050] ~ "-doc"`,
		`cf[10050] ~ "doc -s"`,
		`cf[10050] !~ "\"doc/s-3\""`,
		`cf[10050] is EMPTY`,
		`cf[10050] ~ "\"doc/s-3\"" OR summary ~ "story"`,
		`NOT cf[10050] ~ "\"doc/s-3\""`,
		`text ~ "\"doc/s-3\""`,
		`summary ~ "doc" AND cf[10050] ~ "\"doc/s-2\"" ORDER BY key`,
		`cf[10050] ~ "\"doc/s-nope\""`,
		// Several exact tokens, several terms: the index intersects them.
		`cf[10050] ~ "\"doc/s-1\"" OR cf[10050] ~ "\"doc/s-12\"" OR cf[10050] ~ "\"doc/s-21\""`,
		`cf[10050] ~ "doc 3"`,
		`cf[10050] ~ "s 33x"`,
		`cf[10050] ~ "\"doc/s-3\" -\"doc/s-33x\""`,
		`cf[10050] ~ "\"doc/s-3\" s-4"`,
		`(cf[10050] ~ "\"doc/s-1\"" OR cf[10050] ~ "\"doc/s-2\"") OR (cf[10050] ~ "\"doc/s-3\"" OR summary ~ "story")`,
		`project in (DEMO, OTHER) AND cf[10050] ~ "doc" ORDER BY summary DESC`,
	}
	keys := func(jql string, rec map[int64]bool) []string {
		t.Helper()
		s.mu.Lock()
		defer s.mu.Unlock()
		hits, _, e := s.run(jql, rec)
		if e != nil {
			t.Fatalf("%s: %v", jql, e.ErrorMessages)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Key)
		}
		return out
	}
	recAll := map[int64]bool{}
	for _, id := range edited {
		recAll[id] = true
	}
	nonEmpty := 0
	for _, step := range []time.Duration{0, 2 * time.Minute} {
		now = now.Add(step)
		for _, rec := range []map[int64]bool{nil, recAll} {
			for _, q := range queries {
				s.noIndex = false
				got := keys(q, rec)
				s.noIndex = true
				want := keys(q, rec)
				s.noIndex = false
				if !slices.Equal(got, want) {
					t.Errorf("after %v, reconcile=%v, %s:\n index %v\n scan  %v", step, rec != nil, q, got, want)
				}
				if len(want) > 0 {
					nonEmpty++
				}
			}
		}
	}
	if nonEmpty < len(queries) {
		t.Errorf("only %d non-empty results: the queries do not exercise the index", nonEmpty)
	}
}
