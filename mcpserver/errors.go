package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// callState is shared between the receiving middleware and the tool
// handlers of one tools/call: the handler records the *core.Error it
// failed with (the SDK would otherwise flatten it into an isError result)
// and whether it asked the person to confirm.
type callState struct {
	err      *core.Error
	runID    string
	asked    bool // the handler returned an elicitation input request
	answered bool // the handler was called again with the person's answer
	accepted bool // the person accepted
	progress int  // progress notifications sent
}

type callStateKey struct{}

func stateFrom(ctx context.Context) *callState {
	if s, ok := ctx.Value(callStateKey{}).(*callState); ok {
		return s
	}
	return &callState{} // handler called outside the middleware (not expected)
}

// fail records err for the middleware and returns it; every tool handler
// returns its failures through fail.
func fail(ctx context.Context, err error) error {
	e := core.AsError(err)
	stateFrom(ctx).err = e
	return e
}

// errorMiddleware is the one place where a tool failure becomes a
// JSON-RPC error: a service *core.Error, an argument the SDK rejected
// before the handler ran, an unexpected error and a panic (recovered; the
// server keeps running). It also logs every call with its run id.
func errorMiddleware(logger *slog.Logger, checkArgs func(tool string, args json.RawMessage) *core.Error) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			tool := ""
			var args json.RawMessage
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
				tool, args = p.Name, p.Arguments
			}
			st := &callState{}
			ctx = context.WithValue(ctx, callStateKey{}, st)
			start := time.Now()
			defer func() {
				if r := recover(); r != nil {
					e := core.Errorf(core.CodeInternal,
						"Tool %s stopped on an unexpected internal fault. If it was a commit, items written before the fault stay written: run the matching preview again to see where things stand (the same idempotency key reports the interrupted commit). Report the run id if it persists.", tool).
						WithRunID(newRunID())
					logger.Error("tool panicked", "tool", tool, "run_id", e.RunID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					res, err = nil, toWireError(e)
				}
			}()
			if e := checkArgs(tool, args); e != nil {
				st.err = e.WithRunID(newRunID())
				res, err = nil, toWireError(st.err)
			} else {
				res, err = next(ctx, method, req)
				res, err = convert(tool, st, res, err)
			}
			logCall(logger, tool, st, err, time.Since(start))
			return res, err
		}
	}
}

func convert(tool string, st *callState, res mcp.Result, err error) (mcp.Result, error) {
	if st.err != nil {
		e := st.err
		if e.RunID == "" {
			e.RunID = newRunID()
		}
		return nil, toWireError(e)
	}
	if err != nil {
		if st.asked && !st.answered {
			// The SDK could not put our confirmation question to the
			// client (legacy clients are asked by the SDK on our behalf).
			e := core.Errorf(core.CodeConfirmationRequired,
				"The person could not be asked to confirm this commit (%s). Nothing was written. Commit from a client that can show the question, or have a person run `dwire review <preview_handle>`.",
				oneLine(err.Error())).WithRunID(newRunID())
			st.err = e
			return nil, toWireError(e)
		}
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			if wire.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(wire.Message, "unknown tool") {
				e := core.Errorf(core.CodeValidationFailed,
					"There is no tool named %q. The tools are %s.", tool, strings.Join(toolNames, ", ")).
					WithRunID(newRunID()).WithDetails(core.Detail{Field: "name", Message: "unknown tool"})
				st.err = e
				return nil, toWireError(e)
			}
			// Any other protocol error the SDK raised itself is already
			// on the error channel.
			return nil, err
		}
		e := core.Wrap(err, core.CodeInternal,
			"Tool %s failed with an unexpected internal error. Re-run with the run id at hand and report it if it persists.", tool).
			WithRunID(newRunID())
		st.err = e
		return nil, toWireError(e)
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		// Our handlers never return isError results (their errors go
		// through fail), so this is the SDK rejecting the arguments
		// against the input schema before the handler ran.
		e := core.Errorf(core.CodeValidationFailed,
			"The arguments to %s do not match its input schema: %s. Check the tool's inputSchema and call it again.",
			tool, oneLine(strings.TrimPrefix(resultText(r), "validating \"arguments\": "))).WithRunID(newRunID())
		e.Details = []core.Detail{{Field: "arguments", Message: oneLine(resultText(r))}}
		st.err = e
		return nil, toWireError(e)
	}
	return res, nil
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			b.WriteString(t.Text)
		}
	}
	if b.Len() == 0 {
		return "invalid arguments"
	}
	return b.String()
}

// oneLine collapses whitespace so a multi-line SDK message reads as one
// sentence, and bounds its length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 500
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

func logCall(logger *slog.Logger, tool string, st *callState, err error, d time.Duration) {
	attrs := []any{"tool", tool, "duration_ms", d.Milliseconds()}
	if st.err != nil {
		attrs = append(attrs, "run_id", st.err.RunID, "code", string(st.err.Code))
		if st.err.Err != nil {
			attrs = append(attrs, "cause", st.err.Err.Error())
		}
		logger.Warn("tool failed", attrs...)
		return
	}
	if err != nil {
		logger.Warn("tool failed", append(attrs, "error", err.Error())...)
		return
	}
	if st.runID != "" {
		attrs = append(attrs, "run_id", st.runID)
	}
	if st.asked || st.answered {
		attrs = append(attrs, "asked_person", true, "person_accepted", st.accepted)
	}
	logger.Info("tool call", attrs...)
}
