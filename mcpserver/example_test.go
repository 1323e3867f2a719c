package mcpserver_test

import (
	"context"
	"fmt"
	"log"

	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
	"github.com/devworkwire/devworkwire/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExampleNew serves the core service to an MCP client over in-memory
// transports and lists the tools with their tier. `dwire mcp` does the
// same over stdio with mcpserver.Serve.
func ExampleNew() {
	svc := service.NewWorkItemService(service.ServiceOptions{
		Provider: fakeprovider.New(fakeprovider.Options{}),
		Store:    memstore.New(memstore.Options{}),
	})
	server := mcpserver.New(svc, mcpserver.Options{Version: "v1.0.0"})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	fmt.Println(cs.InitializeResult().ServerInfo.Name, cs.InitializeResult().ServerInfo.Version)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name, "read-only:", t.Annotations.ReadOnlyHint)
	}
	// Output:
	// dwire v1.0.0
	// document_export read-only: true
	// import_commit read-only: false
	// import_preview read-only: true
	// progress_commit read-only: false
	// progress_preview read-only: true
	// pull_commit read-only: false
	// pull_preview read-only: true
	// workitem_get read-only: true
	// workitem_query read-only: true
}
