package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/devworkwire/devworkwire/core"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ErrorCode is the JSON-RPC error code of every tool failure. It lies in
// the implementation-defined server-error range (-32000 to -32019). Agents
// branch on error.data.code (a stable core error code), not on this number.
const ErrorCode int64 = -32000

// toWireError is the one table from a core error to the JSON-RPC error
// channel: message "CODE: message", data {code, message, details,
// retryable, run_id}.
func toWireError(e *core.Error) *jsonrpc.Error {
	data, err := json.Marshal(e)
	if err != nil { // cannot happen for core.Error; keep the channel valid anyway
		data = []byte(`{"code":"INTERNAL_ERROR","message":"error payload could not be encoded","details":[],"retryable":false}`)
	}
	return &jsonrpc.Error{Code: ErrorCode, Message: e.Error(), Data: data}
}

// wire turns a tool failure into the JSON-RPC error the handler returns
// (go-sdk passes a *jsonrpc.Error through unchanged). An error without a
// code is INTERNAL_ERROR; every error gets a run id. The call's log line
// records the code and run id.
func wire(ctx context.Context, err error) *jsonrpc.Error {
	e := core.AsError(err)
	if e.RunID == "" {
		e = e.WithRunID(newRunID())
	}
	if l := logOf(ctx); l != nil {
		l.err = e
	}
	return toWireError(e)
}
