package main

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	_ "github.com/devworkwire/devworkwire/store-sqlite" // registers the "sqlite" driver
)

var previewLine = regexp.MustCompile(`Preview ((?:imp|prg)_[0-9a-f]+) \(expires`)

// swapStoredPlan rewrites the plan stored under handle, and its digest, as
// anyone who can write a shared store could: old becomes new in the plan.
func swapStoredPlan(t *testing.T, dbPath, handle, old, new string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(10000)")
	must(t, err)
	defer db.Close()
	var plan []byte
	must(t, db.QueryRow(`SELECT plan FROM previews WHERE handle = ?`, handle).Scan(&plan))
	if !bytes.Contains(plan, []byte(old)) {
		t.Fatalf("the stored plan of %s does not contain %q", handle, old)
	}
	plan = bytes.ReplaceAll(plan, []byte(old), []byte(new))
	res, err := db.Exec(`UPDATE previews SET plan = ?, plan_digest = ? WHERE handle = ?`, plan, core.PlanDigest(plan), handle)
	must(t, err)
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("swap updated %d rows", n)
	}
}

// What is committed is the plan the person saw: a stored plan rewritten
// (with a matching digest) while `dwire import` or `dwire review` waits at
// the prompt is refused on "y" with PREVIEW_STALE, and nothing is written.
func TestPTYPlanSwappedAtThePromptIsRefused(t *testing.T) {
	for _, cmd := range []string{"import", "review"} {
		t.Run(cmd, func(t *testing.T) {
			f := newPTYFixture(t)
			args := []string{"import", "plan.md"}
			if cmd == "review" {
				s := f.start(t, nil, "import", "plan.md", "--dry-run")
				if code := s.wait(); code != 0 {
					t.Fatalf("dry run exit %d\n%s", code, s.output())
				}
				m := previewLine.FindStringSubmatch(s.output())
				if m == nil {
					t.Fatalf("no handle:\n%s", s.output())
				}
				args = []string{"review", m[1]}
			}
			s := f.start(t, nil, args...)
			s.waitFor(promptText)
			m := previewLine.FindStringSubmatch(s.output())
			if m == nil {
				t.Fatalf("no handle shown:\n%s", s.output())
			}
			if !strings.Contains(s.output(), "Epic e-1: Guest checkout") {
				t.Fatalf("the person did not see the plan:\n%s", s.output())
			}
			swapStoredPlan(t, filepath.Join(f.dir, "state.db"), m[1], "Guest checkout", "Injected epic")
			s.send("y\r")
			code := s.wait()
			out := s.output()
			if code != 1 || !strings.Contains(out, "Error: PREVIEW_STALE:") {
				t.Fatalf("exit %d, want 1 with PREVIEW_STALE\n%s", code, out)
			}
			if n := len(f.srv.Writes()); n != 0 {
				t.Fatalf("%d writes after the plan was swapped", n)
			}
			if n := len(f.srv.Issues()); n != 0 {
				t.Fatalf("%d issues in Jira", n)
			}
		})
	}
}
