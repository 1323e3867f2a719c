package service_test

import (
	"context"
	"testing"

	"github.com/devworkwire/devworkwire/core/internal/cputime"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// BenchmarkImportPreview10k previews a 10,000-item document (100 epics of
// 99 stories) against the in-memory fake: once into an empty tracker (all
// creates) and once after it was imported (all unchanged). Target: under
// 300 ms and 200 MB per preview. cpu-ms/op is the process CPU time per
// preview, which stays meaningful on a loaded machine where wall time
// does not.
func BenchmarkImportPreview10k(b *testing.B) {
	doc := []byte(bigDoc("bench", 100, 99))
	for _, imported := range []bool{false, true} {
		name := "empty-tracker"
		if imported {
			name = "already-imported"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			p := fakeprovider.New(fakeprovider.Options{})
			svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: memstore.New(memstore.Options{})})
			if imported {
				pre, err := svc.ImportPreview(ctx, service.ImportPreviewInput{Path: "bench.md", Data: doc})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := svc.ImportCommit(ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true}); err != nil {
					b.Fatal(err)
				}
			}
			p.ForbidWrites(b)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Process()
			defer func() { b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op") }()
			for b.Loop() {
				res, err := svc.ImportPreview(ctx, service.ImportPreviewInput{Path: "bench.md", Data: doc})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Items) != 10000 {
					b.Fatalf("%d items", len(res.Items))
				}
			}
		})
	}
}

// BenchmarkImportCommit10k commits a 10,000-item document (all creates)
// into an empty in-memory fake: the service's own overhead per write.
func BenchmarkImportCommit10k(b *testing.B) {
	doc := []byte(bigDoc("bench", 100, 99))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		p := fakeprovider.New(fakeprovider.Options{})
		svc := service.NewWorkItemService(service.ServiceOptions{Provider: p, Store: memstore.New(memstore.Options{})})
		pre, err := svc.ImportPreview(ctx, service.ImportPreviewInput{Path: "bench.md", Data: doc})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := svc.ImportCommit(ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, Confirmed: true})
		if err != nil || res.Counts.Created != 10000 {
			b.Fatal(err)
		}
	}
}
