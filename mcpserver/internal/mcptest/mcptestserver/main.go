// Command mcptestserver is a test-only MCP server: the real mcpserver over
// the real service.WorkItemService, with core/providertest/fakeprovider as the tracker and
// core/storetest/memstore as the state store. The mcpserver tests run it as a
// subprocess over stdio. It is not shipped; `dwire mcp` is the product.
//
// Test hooks: workitem_get of PANIC-1 panics inside the service call;
// workitem_get of BLOCK-1 logs "blocking" and waits until its context
// ends; -fail-create N makes the N-th item create fail (JIRA_UNAVAILABLE).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// panicky wraps the service so a test can make a handler panic.
type panicky struct{ *service.WorkItemService }

func (p panicky) Get(ctx context.Context, in service.GetInput) (service.GetResult, error) {
	switch in.Item {
	case "PANIC-1":
		panic("mcptestserver: deliberate panic for PANIC-1")
	case "BLOCK-1":
		fmt.Fprintln(os.Stderr, "mcptestserver: blocking")
		<-ctx.Done()
		return service.GetResult{}, ctx.Err()
	}
	return p.WorkItemService.Get(ctx, in)
}

func main() { os.Exit(run()) }

func run() int {
	fs := flag.NewFlagSet("mcptestserver", flag.ContinueOnError)
	fs.SetOutput(os.Stderr) // stdout belongs to the protocol
	workspace := fs.String("workspace", "", "workspace folder")
	version := fs.String("version", "v0.0.0-test", "serverInfo.version")
	elicitation := fs.String("elicitation", mcpserver.ElicitationWhenAvailable, "off | when-available | required")
	failCreate := fs.Int("fail-create", 0, "make the N-th item create fail (0 = never)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	prov := fakeprovider.New(fakeprovider.Options{})
	if *failCreate > 0 {
		prov.FailItem(*failCreate, fakeprovider.ItemFail, core.Errorf(core.CodeJiraUnavailable, "Jira answered 503 for this create (test fault)."))
	}
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: prov, Store: memstore.New(memstore.Options{}), Logger: logger})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := mcpserver.Serve(ctx, panicky{svc}, mcpserver.Options{
		Version: *version, Logger: logger, Workspace: *workspace, Elicitation: *elicitation,
	}, os.Stdin, os.Stdout)
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "mcptestserver:", err)
		return 1
	}
	return 0
}
