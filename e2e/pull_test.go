package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPullLeavesAnItemItCannotWriteAndPullsTheRest: a person gives one
// story a title the document cannot hold (a control character: the
// parser refuses it) and renames another; the pull leaves the first
// alone, says which and why, and pulls the second — it used to refuse the
// whole pull and tell the person to pull the items one at a time, which
// no command could do. `--item` narrows a pull to named items.
func TestPullLeavesAnItemItCannotWriteAndPullsTheRest(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.write("plan.md", "---\nid: shop\n---\n## Story s-1: Pay\n\nA guest pays.\n\n## Story s-2: Save the address\n\n## Story s-3: Receipt\n")
	e.importConfirmed("plan.md")
	byRef := e.issuesByRef()
	e.personSetsField(byRef["shop/s-1"].Key, `{"summary": "Pay\u0007 now"}`)
	e.personSetsField(byRef["shop/s-2"].Key, `{"summary": "Save the address for next time"}`)
	e.personSetsField(byRef["shop/s-3"].Key, `{"summary": "E-mail the receipt"}`)
	before := e.writes()

	r := e.dwire("pull", "plan.md", "--dry-run")
	if r.code != 0 {
		t.Fatalf("pull --dry-run: %s", r)
	}
	for _, want := range []string{"s-2", "s-3", "Save the address for next time"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the preview does not show %q:\n%s", want, r)
		}
	}
	if !strings.Contains(r.stderr, "Warning:") || !strings.Contains(r.stderr, "s-1 ("+byRef["shop/s-1"].Key+")") || !strings.Contains(r.stderr, "control character") {
		t.Errorf("no warning naming s-1 and why it is left:\n%s", r)
	}
	if strings.Contains(r.stdout+r.stderr, "one at a time") {
		t.Errorf("the pull still suggests pulling one at a time:\n%s", r)
	}

	// Narrowed to s-2: only s-2 is compared and written.
	r = e.dwirePTY("y\r", "pull", "plan.md", "--item", "s-2")
	doc, _ := os.ReadFile(filepath.Join(e.dir, "plan.md"))
	if r.code != 0 || !strings.Contains(string(doc), "## Story s-2: Save the address for next time") || !strings.Contains(string(doc), "## Story s-3: Receipt") || !strings.Contains(string(doc), "## Story s-1: Pay\n") {
		t.Fatalf("pull --item s-2: %s\n%s", r, doc)
	}
	if regexp.MustCompile(`(?m)^  \S+ +DEMO-\d+ +Story s-3`).MatchString(r.stdout) {
		t.Errorf("a pull narrowed to s-2 shows s-3:\n%s", r.stdout)
	}

	// The rest: s-3 pulled, s-1 left as it is.
	r = e.dwirePTY("y\r", "pull", "plan.md")
	doc, _ = os.ReadFile(filepath.Join(e.dir, "plan.md"))
	if r.code != 0 || !strings.Contains(string(doc), "## Story s-3: E-mail the receipt") || !strings.Contains(string(doc), "## Story s-1: Pay\n") {
		t.Fatalf("pull: %s\n%s", r, doc)
	}
	if n := e.writes() - before; n != 2 {
		t.Errorf("the two pulls made %d Jira writes; want 2 (one record per pulled item, none for s-1)", n)
	}

	r = e.dwire("pull", "plan.md", "--item", "s-9", "--dry-run")
	if r.code != 1 || !strings.Contains(r.stderr, "s-9") {
		t.Errorf("pull --item of no item: %s", r)
	}
}

// TestPullSweepsAKilledPullsTemporaryFile: a pull killed while writing
// leaves its temporary file (".plan.md.dwire-<hex>", a full copy of the
// document) next to the document; the next pull that writes the
// document removes it, and leaves none of its own.
func TestPullSweepsAKilledPullsTemporaryFile(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.write("plan.md", "---\nid: shop\n---\n## Story s-1: Pay\n\nA guest pays.\n")
	e.importConfirmed("plan.md")
	key := e.issuesByRef()["shop/s-1"].Key
	e.personSetsField(key, `{"summary": "Pay as a guest"}`)
	left := e.write(".plan.md.dwire-0123456789ab", "---\nid: shop\n---\n## Story s-1: Pay as a guest\n")
	r := e.dwirePTY("y\r", "pull", "plan.md")
	doc, _ := os.ReadFile(filepath.Join(e.dir, "plan.md"))
	if r.code != 0 || !strings.Contains(string(doc), "## Story s-1: Pay as a guest") {
		t.Fatalf("pull: %s\n%s", r, doc)
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("the killed pull's temporary file %s is still there", filepath.Base(left))
	}
	es, _ := os.ReadDir(e.dir)
	for _, de := range es {
		if strings.Contains(de.Name(), ".dwire-") {
			t.Errorf("a temporary file is left: %s", de.Name())
		}
	}
}
