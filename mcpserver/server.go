package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"runtime/debug"

	"github.com/devworkwire/devworkwire/core"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Service is what the MCP server needs of the core: the seven methods of
// *core.WorkItemService, which satisfies it.
type Service interface {
	ImportPreview(ctx context.Context, in core.ImportPreviewInput) (core.ImportPreviewResult, error)
	ImportCommit(ctx context.Context, in core.CommitInput) (core.ImportCommitResult, error)
	ProgressPreview(ctx context.Context, in core.ProgressPreviewInput) (core.ProgressPreviewResult, error)
	ProgressCommit(ctx context.Context, in core.CommitInput) (core.ProgressCommitResult, error)
	Get(ctx context.Context, in core.GetInput) (core.GetResult, error)
	Query(ctx context.Context, in core.QueryInput) (core.QueryResult, error)
	Preview(ctx context.Context, handle string) (core.PreviewInfo, error)
}

// Elicitation modes: whether commit tools also ask the person through MCP
// elicitation, on top of preview_handle + confirmed: true.
const (
	// ElicitationOff never asks.
	ElicitationOff = "off"
	// ElicitationWhenAvailable asks when the client supports elicitation
	// and commits without asking when it does not (the default).
	ElicitationWhenAvailable = "when-available"
	// ElicitationRequired asks, and refuses commits (CONFIRMATION_REQUIRED)
	// from clients that cannot ask.
	ElicitationRequired = "required"
)

// ServerName is serverInfo.name.
const ServerName = "dwire"

// Options configure the server.
type Options struct {
	// Version is serverInfo.version, the package version set at build
	// time. Empty or "(devel)" is replaced by "0.0.0-unknown".
	Version string
	// Logger receives one line per tool call (with run_id) and SDK
	// diagnostics. It must not write to the protocol stream (stdout).
	// nil discards logs.
	Logger *slog.Logger
	// Workspace is the folder holding .devworkwire.yaml; import.preview
	// reads only documents inside it (after resolving symlinks). Empty
	// means the current working directory.
	Workspace string
	// Elicitation is "off", "when-available" (default when empty) or
	// "required". An unknown value is treated as "required" (fail closed).
	Elicitation string
}

type server struct {
	svc       Service
	logger    *slog.Logger
	workspace string
	elicit    string
	pending   *pendingConfirmations
	args      *argValidator
}

// New returns an MCP server exposing svc as the six DevWorkWire tools.
func New(svc Service, o Options) *mcp.Server {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	mode := o.Elicitation
	switch mode {
	case "":
		mode = ElicitationWhenAvailable
	case ElicitationOff, ElicitationWhenAvailable, ElicitationRequired:
	default:
		logger.Warn("unknown elicitation mode; using required", "elicitation", o.Elicitation)
		mode = ElicitationRequired
	}
	s := &server{svc: svc, logger: logger, workspace: o.Workspace, elicit: mode, pending: newPendingConfirmations(), args: newArgValidator()}
	ms := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "DevWorkWire", Version: version(o.Version)}, &mcp.ServerOptions{
		Logger:       logger,
		Instructions: instructions,
	})
	s.addTools(ms)
	ms.AddReceivingMiddleware(errorMiddleware(logger, s.args.check))
	return ms
}

// Serve runs the server over the given streams (stdio: os.Stdin,
// os.Stdout) until the client disconnects or ctx is done. Only JSON-RPC
// messages are written to out.
func Serve(ctx context.Context, svc Service, o Options, in io.Reader, out io.Writer) error {
	t := &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	err := New(svc, o).Run(ctx, t)
	if err == io.EOF {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func version(v string) string {
	if v != "" && v != "(devel)" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/devworkwire/devworkwire/mcpserver" && d.Version != "" && d.Version != "(devel)" {
				return d.Version
			}
		}
	}
	return "0.0.0-unknown"
}

func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "mcp-" + hex.EncodeToString(b[:])
}

const instructions = `DevWorkWire puts a planning document (epics, stories, acceptance criteria) into Jira exactly once, behind a preview -> confirm -> commit gate.
Previews and reads write nothing. To write: call import.preview or progress.preview, show the plan to the person, and only after they agree call the matching commit tool with the preview_handle and confirmed: true. Commits write to Jira irreversibly.
Failures are JSON-RPC errors whose data is {code, message, details, retryable, run_id}; branch on data.code.`
