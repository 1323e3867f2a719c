package mcpserver

import (
	"context"
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

// callLog is what one tools/call's log line says; the handler fills it in
// through the context.
type callLog struct {
	runID    string
	err      *core.Error
	asked    bool // the handler returned an elicitation input request
	answered bool // the handler was called again with the person's answer
	accepted bool // the person accepted
}

type callLogKey struct{}

func logOf(ctx context.Context) *callLog {
	l, _ := ctx.Value(callLogKey{}).(*callLog)
	return l
}

// noteRunID records the run id of a successful call for its log line.
func noteRunID(ctx context.Context, id string) {
	if l := logOf(ctx); l != nil {
		l.runID = id
	}
}

// callMiddleware wraps every tools/call: it accepts the deprecated dotted
// names, refuses unknown tools in the contract's shape, makes a panic an
// INTERNAL_ERROR (the server keeps running), ends the call when the
// server stops, and writes the call's one log line.
func callMiddleware(s *server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			start := time.Now()
			p, _ := req.GetParams().(*mcp.CallToolParamsRaw)
			tool, alias := "", ""
			if p != nil {
				tool = p.Name
				if to, ok := deprecatedNames[tool]; ok {
					alias, tool, p.Name = tool, to, to
				}
			}
			l := &callLog{}
			ctx = context.WithValue(ctx, callLogKey{}, l)
			logCtx := ctx
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			defer s.cancelOnStop(cancel)()
			defer func() {
				if r := recover(); r != nil {
					e := core.Errorf(core.CodeInternal,
						"Tool %s stopped on an unexpected internal fault. If it was a commit, items written before the fault stay written: run the matching preview again to see where things stand (the same idempotency key reports the interrupted commit). Report the run id if it persists.", tool).
						WithRunID(newRunID())
					s.logger.Error("tool panicked", "tool", tool, "run_id", e.RunID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					l.err = e
					res, err = nil, toWireError(e)
				}
				logCall(logCtx, s.logger, tool, alias, l, err, time.Since(start))
			}()
			if !knownTool(tool) {
				e := core.Errorf(core.CodeValidationFailed,
					"There is no tool named %q. The tools are %s.", tool, strings.Join(toolNames, ", ")).
					WithRunID(newRunID()).WithDetails(core.Detail{Field: "name", Message: "unknown tool"})
				l.err = e
				return nil, toWireError(e)
			}
			res, err = next(ctx, method, req)
			var we *jsonrpc.Error
			if err == nil || (errors.As(err, &we) && we.Code == ErrorCode) {
				return res, err // a result, or our handler's own error
			}
			// An error the SDK raised around our handler.
			if l.asked && !l.answered {
				// It could not put our confirmation question to the client
				// (legacy clients are asked by the SDK on our behalf).
				return nil, wire(ctx, core.Errorf(core.CodeConfirmationRequired,
					"The person could not be asked to confirm this commit (%s). Nothing was written. Commit from a client that can show the question, or have a person run `dwire review <preview_handle>`.",
					oneLine(err.Error())))
			}
			if we != nil {
				return nil, err // a protocol error, already on the error channel
			}
			return nil, wire(ctx, core.Wrap(err, core.CodeInternal,
				"Tool %s failed with an unexpected internal error. Re-run with the run id at hand and report it if it persists.", tool))
		}
	}
}

var errServerStopping = errors.New("the MCP server is stopping")

func knownTool(name string) bool {
	for _, n := range toolNames {
		if n == name {
			return true
		}
	}
	return false
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

// logCall writes the one log line of a tool call: tool, outcome or code,
// run id, duration.
func logCall(ctx context.Context, logger *slog.Logger, tool, alias string, l *callLog, err error, d time.Duration) {
	attrs := []any{"tool", tool}
	if alias != "" {
		attrs = append(attrs, "deprecated_name", alias)
	}
	switch {
	case l.err != nil:
		attrs = append(attrs, "outcome", "error", "code", string(l.err.Code), "run_id", l.err.RunID)
	case err != nil:
		attrs = append(attrs, "outcome", "error", "error", oneLine(err.Error()))
	case l.asked && !l.answered:
		attrs = append(attrs, "outcome", "asked_person", "run_id", l.runID)
	default:
		attrs = append(attrs, "outcome", "ok", "run_id", l.runID)
	}
	if l.asked || l.answered {
		attrs = append(attrs, "asked_person", true, "person_accepted", l.accepted)
	}
	attrs = append(attrs, "duration_ms", d.Milliseconds())
	if l.err != nil && l.err.Err != nil {
		attrs = append(attrs, "cause", oneLine(l.err.Err.Error()))
	}
	msg, level := "tool call", slog.LevelInfo
	if alias != "" {
		msg = "tool call under a deprecated name (use " + tool + ")"
	}
	if l.err != nil || err != nil {
		level = slog.LevelWarn
	}
	logger.Log(ctx, level, msg, attrs...)
}
