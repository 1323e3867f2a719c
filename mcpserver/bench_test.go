package mcpserver

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkColdInitializeListTools: start the server process, connect
// (initialize on 2025-11-25; server/discover on 2026-07-28), list the
// tools, close, wait for exit. The binary is built before the timer.
func BenchmarkColdInitializeListTools(b *testing.B) {
	serverBinary(b) // build outside the timed loop
	ws := b.TempDir()
	for _, proto := range protocols {
		b.Run(proto, func(b *testing.B) {
			var first []time.Duration // start → tools listed
			for b.Loop() {
				start := time.Now()
				p := startServer(b, "-workspace", ws)
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), p.t, &mcp.ClientSessionOptions{ProtocolVersion: proto})
				if err != nil {
					b.Fatal(err)
				}
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil || len(res.Tools) != 6 {
					b.Fatalf("list: %v", err)
				}
				first = append(first, time.Since(start))
				cs.Close()
				<-p.done
			}
			b.ReportMetric(float64(median(first).Microseconds())/1000, "median-ms")
		})
	}
}

// BenchmarkQueryOverhead measures workitem.query through the MCP server
// (in-memory transport, go-sdk client: JSON encoding, schema validation
// of arguments and result, middleware) against calling the service
// directly, over a fakeprovider holding 60 items (query limit 25).
func BenchmarkQueryOverhead(b *testing.B) {
	r := newReal(b, Options{}, nil, nil)
	for i := 0; i < 60; i++ {
		r.prov.AddAsPerson(core.WorkItem{Kind: core.KindStory, Title: "Story number " + string(rune('A'+i%26)), Description: "Some **Markdown** text.", AcceptanceCriteria: []string{"one", "two"}, Status: core.StatusTodo})
	}
	svc, c := r.svc, r.c
	ctx := context.Background()
	in := service.QueryInput{Status: core.StatusTodo}
	args := map[string]any{"status": "todo"}
	var direct, viaMCP []time.Duration
	for b.Loop() {
		t0 := time.Now()
		r, err := svc.Query(ctx, in)
		if err != nil || r.Returned != core.DefaultQueryLimit {
			b.Fatalf("direct: %v %d", err, r.Returned)
		}
		t1 := time.Now()
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolWorkItemQuery, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("mcp: %v", err)
		}
		t2 := time.Now()
		direct = append(direct, t1.Sub(t0))
		viaMCP = append(viaMCP, t2.Sub(t1))
	}
	md, mm := median(direct), median(viaMCP)
	b.ReportMetric(float64(md.Nanoseconds())/1000, "direct-median-µs")
	b.ReportMetric(float64(mm.Nanoseconds())/1000, "mcp-median-µs")
	b.ReportMetric(float64((mm-md).Nanoseconds())/1000, "overhead-median-µs")
}
