package service_test

import (
	"context"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// FuzzImportPreview: whatever the document, a preview never panics, never
// writes, and fails only with a stable code of the document kind.
func FuzzImportPreview(f *testing.F) {
	f.Add("plan.md", checkoutDoc())
	f.Add("plan.md", markdown("p", story("s-1", "A", "e-9")))
	f.Add("plan.yaml", "id: x\nepics:\n  - id: e-1\n    title: T\n    stories:\n      - id: s-1\n        title: S\n")
	f.Add("plan.yml", "id: [")
	f.Add("plan.md", "---\nid: x\n---\n## Epic e-1:\n")
	f.Add("plan.txt", "hello")
	p := fakeprovider.New(fakeprovider.Options{})
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: memstore.New(memstore.Options{})})
	// Something to find: the checkout document is in the tracker.
	pre, err := svc.ImportPreview(context.Background(), service.ImportPreviewInput{Path: "plan.md", Data: []byte(checkoutDoc())})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := svc.ImportCommit(context.Background(), service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, data string) {
		p.ForbidWrites(t)
		defer p.AllowWrites()
		res, err := svc.ImportPreview(context.Background(), service.ImportPreviewInput{Path: name, Data: []byte(data)})
		if err != nil {
			switch c := core.ErrorCode(err); c {
			case core.CodeSourceNotFound, core.CodeSourceParseFailed, core.CodeValidationFailed:
			default:
				t.Fatalf("code %s: %v", c, err)
			}
			return
		}
		n := res.Counts.Create + res.Counts.Update + res.Counts.Unchanged + res.Counts.Drift
		if n != len(res.Items) || n == 0 || res.PreviewHandle == "" || res.ResultType != service.ResultPreview {
			t.Fatalf("result %+v", res)
		}
	})
}
