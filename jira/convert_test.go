package jira

import (
	"slices"
	"testing"
)

func TestACInDescriptionRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		desc string
		ac   []string
	}{
		{"", nil},
		{"Just a description.", nil},
		{"", []string{"Only criterion"}},
		{"Intro paragraph.\n\n- a list in the description\n- second", []string{"A guest can pay", "Mail is sent"}},
		{"# Acceptance criteria\n\nOld heading inside the description.", []string{"New one"}},
	} {
		md := descriptionMarkdown(tc.desc, tc.ac, true)
		d, ac := splitAC(md)
		if len(tc.ac) == 0 {
			d, ac = md, nil
		}
		if d != tc.desc || !slices.Equal(ac, tc.ac) {
			t.Errorf("split(%q) = %q, %q; want %q, %q", md, d, ac, tc.desc, tc.ac)
		}
	}
}

func TestParseList(t *testing.T) {
	got := parseList("- one\n* two\n  continued\n1. three\n10) four\nloose line\n")
	want := []string{"one", "two\ncontinued", "three", "four", "loose line"}
	if !slices.Equal(got, want) {
		t.Errorf("parseList = %q; want %q", got, want)
	}
}

func TestMapCategory(t *testing.T) {
	for k, want := range map[string]string{"new": "todo", "indeterminate": "in_progress", "done": "done", "": "todo"} {
		if got := mapCategory(k); string(got) != want {
			t.Errorf("mapCategory(%q) = %q; want %q", k, got, want)
		}
	}
}

func TestJiraDigestChangesWithContent(t *testing.T) {
	base := jiraContent{Summary: "s", Description: "d", Parent: "P-1", Reference: "doc/s-1"}
	seen := map[string]bool{base.digest(): true}
	for _, c := range []jiraContent{
		{Summary: "s2", Description: "d", Parent: "P-1", Reference: "doc/s-1"},
		{Summary: "s", Description: "d2", Parent: "P-1", Reference: "doc/s-1"},
		{Summary: "s", Description: "d", Parent: "", Reference: "doc/s-1"},
		{Summary: "s", Description: "d", Parent: "P-1", Reference: "doc/s-2"},
		{Summary: "s", Description: "d", AC: "- x", Parent: "P-1", Reference: "doc/s-1"},
	} {
		if seen[c.digest()] {
			t.Errorf("digest of %+v collides", c)
		}
		seen[c.digest()] = true
	}
}
