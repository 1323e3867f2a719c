package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// planDoc is a planning document with epics × stories items.
func planDoc(epics, stories int) []byte {
	var b strings.Builder
	b.WriteString("---\nid: shared\n---\n# Shared plan\n")
	for e := 1; e <= epics; e++ {
		fmt.Fprintf(&b, "\n## Epic e-%d: Epic %d\n", e, e)
		for s := 1; s <= stories; s++ {
			fmt.Fprintf(&b, "\n### Story s-%d-%d: Story %d of epic %d\n", e, s, s, e)
		}
	}
	return []byte(b.String())
}

// testTwoPreviewsOfOneDocument is a service-level check: two "processes"
// (two stores opened on the same underlying data, two services) preview
// the same document and commit their different previews at the same
// moment. The commit lock lets exactly one create; the other is
// PREVIEW_STALE, and the tracker holds every item once.
func testTwoPreviewsOfOneDocument(t *testing.T, e *env) {
	tracker := fakeprovider.New(fakeprovider.Options{})
	var svcs [2]*service.WorkItemService
	var handles [2]string
	for i := range svcs {
		svcs[i] = service.NewWorkItemService(service.ServiceOptions{Provider: tracker, Store: e.openReal()})
		pre, err := svcs[i].ImportPreview(t.Context(), service.ImportPreviewInput{Path: "shared.md", Data: planDoc(3, 40)})
		if err != nil {
			t.Fatal(err)
		}
		handles[i] = pre.PreviewHandle
	}
	errs := make(chan error, 2)
	start := make(chan struct{})
	for i := range svcs {
		go func() {
			<-start
			_, err := svcs[i].ImportCommit(t.Context(), service.CommitInput{PreviewHandle: handles[i], Confirmed: true})
			errs <- err
		}()
	}
	close(start)
	ok, stale := 0, 0
	for range 2 {
		switch err := <-errs; core.ErrorCode(err) {
		case "":
			ok++
		case core.CodePreviewStale:
			stale++
		default:
			t.Errorf("commit: %v", err)
		}
	}
	refs := map[core.Reference]int{}
	for _, w := range tracker.Items() {
		refs[w.Reference]++
	}
	if ok != 1 || stale != 1 || len(refs) != 123 || len(tracker.Items()) != 123 {
		t.Fatalf("%d ok, %d stale, %d references on %d items; want 1, 1, 123, 123", ok, stale, len(refs), len(tracker.Items()))
	}
}
