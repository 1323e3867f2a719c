// Package e2e proves DevWorkWire as users run it: real dwire and dwire mcp
// processes against a real fake-Jira server (mockjira, in a FROM scratch
// container when a Docker engine is reachable, else a local process), real
// SQLite files and a real PostgreSQL, with faults injected. The scenarios
// are in the _test.go files; package harness starts the parts.
package e2e
