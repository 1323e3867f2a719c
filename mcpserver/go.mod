module github.com/devworkwire/devworkwire/mcpserver

go 1.26

require github.com/devworkwire/devworkwire/core v0.0.0-00010101000000-000000000000

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)

replace github.com/devworkwire/devworkwire/core => ../core
