// Command benchharness is the benchmark driver behind `make bench` (issue
// 10). It builds dwire and mockjira from this checkout, starts mockjira as a
// local process with a per-request latency, and measures for generated
// documents of several sizes (≈2% epics): the preview as the CLI runs it
// (requests, wall, CPU, peak RSS), a fresh import's commit through the real
// Jira adapter and a SQLite store (requests by endpoint, wall), re-imports
// with nothing and with 10% changed, and the same import done one create
// request per item (the baseline). It also times the CLI's cold start and
// MCP initialize + tools/list on a cold `dwire mcp`, runs the store
// benchmarks, and writes docs/benchmarks.md and docs/benchmarks.json.
//
//	go run ./e2e/cmd/benchharness [-latency 50ms] [-sizes 100,1000,10000] [-skip-baseline] [-quick]
package main
