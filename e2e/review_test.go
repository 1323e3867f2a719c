package e2e

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReviewListsWhatAPersonWaitsOn: through the real binary, dwire
// review without a handle lists only previews a person is waiting on — an
// agent's import preview and pull preview (pul_ handle, "pull into") —
// never a dry run, a preview declined at the prompt, a committed one or
// one that writes nothing; a preview whose items changed in Jira is
// refused PREVIEW_STALE before the question is asked, writes nothing, and
// leaves the list.
func TestReviewListsWhatAPersonWaitsOn(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	listed := func() string {
		t.Helper()
		r := e.dwire("review")
		if r.code != 0 {
			t.Fatalf("dwire review: %s", r)
		}
		return r.stdout
	}
	handles := regexp.MustCompile(`(?m)^((imp|prg|pul)_[0-9a-f]+)  `)
	shop := planSpec{id: "review-shop", epics: 1, stories: 2}
	e.write("shop.md", shop.markdown())
	if r := e.dwire("import", "shop.md", "--dry-run"); r.code != 0 {
		t.Fatalf("dry run: %s", r)
	}
	if r := e.dwirePTY("n\r", "import", "shop.md"); r.code != 0 {
		t.Fatalf("import answered no: %s", r)
	}
	if l := listed(); handles.MatchString(l) {
		t.Errorf("a dry run or a declined preview is listed:\n%s", l)
	}
	e.importConfirmed("shop.md")
	if r := e.dwire("import", "shop.md"); r.code != 0 || !strings.Contains(r.stderr, "Nothing to write") {
		t.Fatalf("unchanged import: %s", r)
	}

	// An agent previews another document, and a pull of shop after a
	// person renamed a story in Jira.
	cs, _ := e.mcp()
	other := planSpec{id: "review-other", epics: 1, stories: 1}
	agent := e.scPreview(cs, e.write("other.md", other.markdown()))
	s1 := e.issuesByRef()["review-shop/s-1"].Key
	if err := e.jira.EditAsPerson(ctx, s1, "Renamed by a person in Jira"); err != nil {
		t.Fatal(err)
	}
	var pull struct {
		PreviewHandle string `json:"preview_handle"`
	}
	if d := e.call(cs, "pull_preview", map[string]any{"path": "shop.md"}, &pull); d != nil || !strings.HasPrefix(pull.PreviewHandle, "pul_") {
		t.Fatalf("pull_preview: %v, handle %q; want a pul_ handle", d, pull.PreviewHandle)
	}
	l := listed()
	var got []string
	for _, m := range handles.FindAllStringSubmatch(l, -1) {
		got = append(got, m[1])
	}
	slices.Sort(got) // made within a second: the store keeps seconds
	if !slices.Equal(got, []string{agent.PreviewHandle, pull.PreviewHandle}) || !strings.Contains(l, "pull into review-shop") || !strings.Contains(l, "import of review-other") {
		t.Fatalf("dwire review lists %v; want the agent's import %s and pull %s:\n%s", got, agent.PreviewHandle, pull.PreviewHandle, l)
	}

	// A person imports the document (superseding the agent's preview);
	// the agent previews it again and that preview goes stale (its story
	// renamed in Jira): refused before the question, nothing written, and
	// it leaves the list.
	other2 := planSpec{id: "review-other", epics: 1, stories: 1, titles: map[string]string{"s-1": "Story 1, changed"}}
	e.write("other.md", other2.markdown())
	e.importConfirmed("other.md")
	stale := e.scPreview(cs, e.write("other.md", planSpec{id: "review-other", epics: 1, stories: 1}.markdown()))
	if err := e.jira.EditAsPerson(ctx, e.issuesByRef()["review-other/s-1"].Key, "Story renamed in Jira"); err != nil {
		t.Fatal(err)
	}
	w := e.writes()
	r := e.dwirePTY("y\r", "review", stale.PreviewHandle)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "PREVIEW_STALE") || strings.Contains(r.stdout+r.stderr, "[y/N]") {
		t.Errorf("dwire review of a stale preview: %s; want PREVIEW_STALE before any question", r)
	}
	if e.writes() != w {
		t.Errorf("the stale review wrote %d times", e.writes()-w)
	}
	if l := listed(); strings.Contains(l, stale.PreviewHandle) || strings.Contains(l, agent.PreviewHandle) || !strings.Contains(l, pull.PreviewHandle) {
		t.Errorf("after the stale review the list is:\n%s\nwant the pull only (%s superseded, %s refused as stale)", l, agent.PreviewHandle, stale.PreviewHandle)
	}
}
